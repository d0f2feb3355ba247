import java.lang.annotation.ElementType;
import java.lang.annotation.Target;

/**
 * Marks a method that should run atomically. The agent recognises any annotation named
 * `Atomic`, in any package, retained in the class file (CLASS, the default) or at run time.
 */
@Target(ElementType.METHOD)
@interface Atomic {}
