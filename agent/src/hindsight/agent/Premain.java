package hindsight.agent;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The agent's entry point ({@code -javaagent:hindsight-agent.jar=out=FILE,...}).
 *
 * <p>The jar holds three parts. This class, loaded by the system class loader. The runtime
 * ({@code hindsight.rt}), which instrumented code of any class loader calls: the jar is
 * appended to the bootstrap class path, so every loader finds it there. The transformer and
 * ASM, stored under {@code inner/} where no class loader of the application looks: they are
 * defined by {@link Inner}, a loader of their own whose parent is the bootstrap loader, so an
 * application's own ASM (any version) and ours never meet.
 */
public final class Premain {
    private Premain() {}

    public static void premain(String args, Instrumentation inst) throws Exception {
        String options = args == null ? "" : args;
        String out = null;
        for (String opt : options.split(",")) {
            if (opt.startsWith("out=")) {
                out = opt.substring(4);
            }
        }
        if (out == null) {
            out = "hindsight.hst";
        }
        File jar = new File(Premain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        JarFile jf = new JarFile(jar);
        inst.appendToBootstrapClassLoaderSearch(jf);
        hindsight.rt.Control.start(out, options);
        ClassLoader inner = new Inner(jf);
        ClassFileTransformer t = (ClassFileTransformer) inner.loadClass("hindsight.transform.Transformer")
                .getConstructor(String.class).newInstance(options);
        inst.addTransformer(t, false);
    }

    /** Defines the classes stored under {@code inner/} in the agent jar. */
    static final class Inner extends ClassLoader {
        private final JarFile jar;

        Inner(JarFile jar) {
            super("hindsight-agent", null);
            this.jar = jar;
        }

        /** The transformer's data files (the JDK models table) stored beside its classes. */
        @Override
        public InputStream getResourceAsStream(String name) {
            JarEntry e = jar.getJarEntry("inner/" + name);
            try {
                return e == null ? null : jar.getInputStream(e);
            } catch (IOException x) {
                return null;
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            JarEntry e = jar.getJarEntry("inner/" + name.replace('.', '/') + ".class");
            if (e == null) {
                throw new ClassNotFoundException(name);
            }
            try (InputStream in = jar.getInputStream(e)) {
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                in.transferTo(buf);
                byte[] b = buf.toByteArray();
                return defineClass(name, b, 0, b.length);
            } catch (IOException x) {
                throw new ClassNotFoundException(name, x);
            }
        }
    }
}
