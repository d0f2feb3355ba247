package hindsight.transform;

import hindsight.rt.Names;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * Instruments application classes as they load (ASM's tree API). Loaded by the agent's own
 * class loader together with ASM, so an application's ASM is never seen or shadowed.
 */
public final class Transformer implements ClassFileTransformer, Opcodes {
    private static final String RT = "hindsight/rt/R";
    private static final String ATOMICS = "hindsight/rt/Atomics";

    private final List<String> include = new ArrayList<>();
    private final List<String> exclude = new ArrayList<>();
    private final boolean syncAtomic;
    /** The helpers that exist, as name + descriptor, per helper class. */
    private final Set<String> helpers = new HashSet<>();
    private final ConcurrentHashMap<String, Info> infos = new ConcurrentHashMap<>();
    /** The JDK models table of `views` (jdk-models.txt): per simple type name, per method, its effect. */
    private final HashMap<String, HashMap<String, Integer>> models = new HashMap<>();
    /** The listed types whose variable is their state (`.<state>`), not their contents (`[]`). */
    private final Set<String> stateTypes = new HashSet<>();
    /** The listed types whose every method is atomic on its own. */
    private final Set<String> syncTypes = new HashSet<>();

    public Transformer(String options) throws ClassNotFoundException {
        boolean sync = false;
        for (String opt : options.split(",")) {
            int eq = opt.indexOf('=');
            String k = eq < 0 ? opt : opt.substring(0, eq);
            String v = eq < 0 ? "" : opt.substring(eq + 1);
            switch (k) {
                case "include": for (String p : v.split(";")) if (!p.isEmpty()) include.add(p); break;
                case "exclude": for (String p : v.split(";")) if (!p.isEmpty()) exclude.add(p); break;
                case "synchronized-atomic": sync = true; break;
                default: break;
            }
        }
        syncAtomic = sync;
        loadModels();
        for (String cls : new String[] {"hindsight.rt.R", "hindsight.rt.Atomics"}) {
            for (Method m : Class.forName(cls, false, null).getMethods()) {
                if (Modifier.isStatic(m.getModifiers())) {
                    helpers.add(cls.replace('.', '/') + "." + m.getName() + Type.getMethodDescriptor(m));
                }
            }
        }
    }

    /**
     * Reads the models table bundled with the agent (its format is in its header). A type it
     * lists has one variable; a method no line names is an update, as statically.
     */
    private void loadModels() {
        try (InputStream in = Transformer.class.getResourceAsStream("jdk-models.txt")) {
            if (in == null) {
                return;
            }
            String text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            for (String raw : text.split("\n")) {
                String line = raw.trim();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split("\\s+");
                if (parts.length == 2 && (parts[0].equals("state") || parts[0].equals("synchronized"))) {
                    for (String t : parts[1].split(",")) {
                        (parts[0].equals("state") ? stateTypes : syncTypes).add(t);
                    }
                    continue;
                }
                if (parts.length != 3) {
                    continue;
                }
                String effect = parts[2].split("\\+")[0];
                int e = effect.equals("read") ? JDK_READ : effect.equals("write") ? JDK_WRITE : JDK_READ | JDK_WRITE;
                for (String t : parts[0].split(",")) {
                    HashMap<String, Integer> methods = models.computeIfAbsent(t, k -> new HashMap<>());
                    for (String m : parts[1].split(",")) {
                        methods.put(m, e);
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("hindsight: warning: the JDK models table is not readable: " + e);
        }
    }

    /** Effects of a modelled JDK call, as `R.jdk` takes them. */
    static final int JDK_READ = 1, JDK_WRITE = 2, JDK_ATOMIC = 4;

    /** A class pattern: a dotted name, `*` matching any run of characters. */
    private static boolean matches(String pattern, String dotted) {
        String regex = ("\\Q" + pattern + "\\E").replace("*", "\\E.*\\Q");
        return dotted.matches(regex);
    }

    private boolean wanted(String name) {
        if (name.startsWith("java/") || name.startsWith("javax/") || name.startsWith("jdk/")
                || name.startsWith("sun/") || name.startsWith("com/sun/") || name.startsWith("hindsight/")
                || name.contains("$$Lambda")) {
            return false;
        }
        String dotted = name.replace('/', '.');
        for (String p : exclude) {
            if (matches(p, dotted)) {
                return false;
            }
        }
        if (include.isEmpty()) {
            return true;
        }
        for (String p : include) {
            if (matches(p, dotted)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
        if (loader == null || name == null || redefined != null || !wanted(name)
                || loader == ClassLoader.getPlatformClassLoader()) {
            return null;
        }
        try {
            return instrument(loader, bytes);
        } catch (Throwable t) {
            System.err.println("hindsight: warning: " + name + " not instrumented: " + t);
            return null;
        }
    }

    // ---- what the transformer needs to know of other classes ------------------------------

    /** A class's superclass, interfaces and fields' access flags, read from its class file. */
    private static final class Info {
        String superName;
        String[] interfaces = new String[0];
        final HashMap<String, Integer> fields = new HashMap<>();
    }

    private Info info(ClassLoader loader, String name) {
        String key = System.identityHashCode(loader) + ":" + name;
        Info known = infos.get(key);
        if (known != null) {
            return known;
        }
        Info info = new Info();
        try (InputStream in = loader != null ? loader.getResourceAsStream(name + ".class")
                : ClassLoader.getSystemResourceAsStream(name + ".class")) {
            if (in == null) {
                return null;
            }
            new ClassReader(in).accept(new ClassVisitor(ASM9) {
                @Override
                public void visit(int v, int a, String n, String sig, String sup, String[] ifs) {
                    info.superName = sup;
                    info.interfaces = ifs == null ? new String[0] : ifs;
                }

                @Override
                public FieldVisitor visitField(int access, String n, String d, String s, Object value) {
                    info.fields.put(n, access);
                    return null;
                }
            }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        } catch (IOException e) {
            return null;
        }
        infos.put(key, info);
        return info;
    }

    /** Whether {@code name} is {@code target} or extends or implements it. */
    private boolean isA(ClassLoader loader, String name, String target) {
        for (int depth = 0; name != null && depth < 32; depth++) {
            if (name.equals(target)) {
                return true;
            }
            Info i = info(loader, name);
            if (i == null) {
                return false;
            }
            for (String itf : i.interfaces) {
                if (isA(loader, itf, target)) {
                    return true;
                }
            }
            name = i.superName;
        }
        return false;
    }

    /** The class declaring field {@code f} as seen from {@code owner}, and its access flags. */
    private Object[] declaring(ClassLoader loader, String owner, String f) {
        for (String c = owner; c != null; ) {
            Info i = info(loader, c);
            if (i == null) {
                return null;
            }
            Integer access = i.fields.get(f);
            if (access != null) {
                return new Object[] {c, access};
            }
            c = i.superName;
        }
        return null;
    }

    // ---- the instrumentation ---------------------------------------------------------------

    private byte[] instrument(ClassLoader loader, byte[] bytes) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, ClassReader.SKIP_FRAMES);
        if ((cn.access & ACC_INTERFACE) != 0 && cn.methods.stream().allMatch(m -> m.instructions.size() == 0)) {
            return null;
        }
        String file = cn.sourceFile != null ? cn.sourceFile : simple(cn.name) + ".java";
        for (MethodNode mn : cn.methods) {
            if (mn.instructions.size() > 0) {
                method(loader, cn, mn, file);
            }
        }
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String a, String b) {
                return common(loader, a, b);
            }
        };
        cn.accept(cw);
        return cw.toByteArray();
    }

    /** The common superclass for the frame computation, from class files (loading nothing). */
    private String common(ClassLoader loader, String a, String b) {
        if (isA(loader, b, a)) {
            return a;
        }
        if (isA(loader, a, b)) {
            return b;
        }
        Info ia = info(loader, a);
        Info ib = info(loader, b);
        if (ia == null || ib == null) {
            return "java/lang/Object";
        }
        for (String c = ia.superName; c != null; ) {
            if (isA(loader, b, c)) {
                return c;
            }
            Info i = info(loader, c);
            c = i == null ? null : i.superName;
        }
        return "java/lang/Object";
    }

    private static String simple(String internal) {
        String s = internal.substring(internal.lastIndexOf('/') + 1);
        return s;
    }

    private static String dotted(String internal) {
        return internal.replace('/', '.');
    }

    private static boolean annotatedAtomic(List<AnnotationNode> list) {
        if (list != null) {
            for (AnnotationNode a : list) {
                if (a.desc.equals("LAtomic;") || a.desc.endsWith("/Atomic;") || a.desc.endsWith("$Atomic;")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static AbstractInsnNode ldc(int v) {
        return new LdcInsnNode(v);
    }

    private static MethodInsnNode rt(String name, String desc) {
        return new MethodInsnNode(INVOKESTATIC, RT, name, desc, false);
    }

    private void method(ClassLoader loader, ClassNode cn, MethodNode mn, String file) {
        jdkState(loader, cn, mn, file);
        InsnList code = mn.instructions;
        int line = 0;
        // Before a constructor's super() call `this` is uninitialized and cannot be passed on.
        boolean ctor = mn.name.equals("<init>");
        int pendingNew = 0;
        boolean initialized = !ctor;
        boolean clinit = mn.name.equals("<clinit>");
        int firstLine = -1;
        for (AbstractInsnNode n = code.getFirst(); n != null; n = n.getNext()) {
            if (n instanceof LineNumberNode) {
                firstLine = ((LineNumberNode) n).line;
                break;
            }
        }
        for (AbstractInsnNode n = code.getFirst(); n != null; ) {
            AbstractInsnNode next = n.getNext();
            if (n instanceof LineNumberNode) {
                line = ((LineNumberNode) n).line;
            }
            int op = n.getOpcode();
            int loc = Names.intern(file + ":" + line);
            if (op == NEW) {
                pendingNew++;
            } else if (op == INVOKESPECIAL && ((MethodInsnNode) n).name.equals("<init>")) {
                if (pendingNew > 0) {
                    pendingNew--;
                } else {
                    initialized = true;
                }
            } else if (n instanceof FieldInsnNode) {
                // A class's initializer happens before every use of the class by another
                // thread (the initialization lock, JLS 12.4.2): its own statics are not shared.
                boolean ownStatic = clinit && ((FieldInsnNode) n).owner.equals(cn.name);
                if (initialized && !ownStatic) {
                    field(loader, code, (FieldInsnNode) n, loc);
                }
            } else if (clinit && ((op >= IALOAD && op <= SALOAD) || (op >= IASTORE && op <= SASTORE))) {
                // The arrays a class initializer fills are its constant tables, published with
                // the class (JLS 12.4.2) like its own statics.
            } else if (op >= IALOAD && op <= SALOAD) {
                InsnList pre = new InsnList();
                pre.add(new InsnNode(DUP2));
                pre.add(ldc(loc));
                pre.add(rt("ra", "(Ljava/lang/Object;II)V"));
                code.insertBefore(n, pre);
            } else if (op >= IASTORE && op <= SASTORE) {
                InsnList pre = new InsnList();
                if (op == LASTORE || op == DASTORE) {
                    pre.add(new InsnNode(DUP2_X2));
                    pre.add(new InsnNode(POP2));
                    pre.add(new InsnNode(DUP2_X2));
                } else {
                    pre.add(new InsnNode(DUP_X2));
                    pre.add(new InsnNode(POP));
                    pre.add(new InsnNode(DUP2_X1));
                }
                pre.add(ldc(loc));
                pre.add(rt("wa", "(Ljava/lang/Object;II)V"));
                code.insertBefore(n, pre);
            } else if (op == MONITORENTER) {
                InsnList pre = new InsnList();
                pre.add(new InsnNode(DUP));
                code.insertBefore(n, pre);
                InsnList post = new InsnList();
                post.add(ldc(loc));
                post.add(rt("acq", "(Ljava/lang/Object;I)V"));
                code.insert(n, post);
            } else if (op == MONITOREXIT) {
                InsnList pre = new InsnList();
                pre.add(new InsnNode(DUP));
                pre.add(ldc(loc));
                pre.add(rt("rel", "(Ljava/lang/Object;I)V"));
                code.insertBefore(n, pre);
            } else if (n instanceof MethodInsnNode) {
                call(loader, code, (MethodInsnNode) n, loc);
            }
            n = next;
        }
        boolean sync = (mn.access & ACC_SYNCHRONIZED) != 0;
        // Constructors and initializers are never blocks: a handler around a super() call
        // would see an uninitialized `this`.
        boolean atomic = !mn.name.startsWith("<")
                && (annotatedAtomic(mn.visibleAnnotations) || annotatedAtomic(mn.invisibleAnnotations)
                        || (sync && syncAtomic));
        if (sync || atomic) {
            wrap(cn, mn, file, Math.max(firstLine, 0), sync, atomic);
        }
    }

    /**
     * Calls of the models table's JDK types on an object read from a field
     * ({@code this.table.add(x)}, {@code socket.close()}): the JDK is not instrumented, so the
     * state inside the object is recorded at the call as an access of one variable per object,
     * named as `views` names it statically: {@code Class.field[]} for contents,
     * {@code Class.field.<state>} for the state of a socket or stream ({@code @ID} added by
     * the trace, per object). The table says whether the call reads, overwrites or updates it;
     * a call of a synchronized type (Vector, StringBuffer, ...) holds the object's monitor
     * around the access, as the JDK method does, so it is atomic and never a race. Which field
     * the receiver came from is found by ASM's source analysis: the receiver must be the value
     * a GETFIELD or GETSTATIC pushed (not a local, a parameter or a call's result, whose field
     * is not known). That value is kept in a fresh local until the call, so the access is
     * recorded after the arguments are evaluated, just before the call runs.
     */
    private void jdkState(ClassLoader loader, ClassNode cn, MethodNode mn, String file) {
        if (models.isEmpty()) {
            return;
        }
        boolean any = false;
        for (AbstractInsnNode n = mn.instructions.getFirst(); n != null && !any; n = n.getNext()) {
            any = n instanceof MethodInsnNode && modelled(loader, (MethodInsnNode) n) != 0;
        }
        if (!any) {
            return;
        }
        Frame<SourceValue>[] frames;
        try {
            frames = new Analyzer<SourceValue>(new SourceInterpreter()).analyze(cn.name, mn);
        } catch (Exception e) {
            return;
        }
        InsnList code = mn.instructions;
        AbstractInsnNode[] insns = code.toArray();
        int line = 0;
        for (int i = 0; i < insns.length; i++) {
            AbstractInsnNode n = insns[i];
            if (n instanceof LineNumberNode) {
                line = ((LineNumberNode) n).line;
            }
            if (!(n instanceof MethodInsnNode) || frames[i] == null) {
                continue;
            }
            MethodInsnNode m = (MethodInsnNode) n;
            int effect = modelled(loader, m);
            if (effect == 0) {
                continue;
            }
            Frame<SourceValue> f = frames[i];
            int args = Type.getArgumentTypes(m.desc).length;
            SourceValue recv = f.getStack(f.getStackSize() - 1 - args);
            if (recv.insns.size() != 1) {
                continue;
            }
            AbstractInsnNode src = recv.insns.iterator().next();
            if (!(src instanceof FieldInsnNode)
                    || (src.getOpcode() != GETFIELD && src.getOpcode() != GETSTATIC)) {
                continue;
            }
            FieldInsnNode field = (FieldInsnNode) src;
            if (isJdk(field.owner)) {
                continue;
            }
            String type = simple(m.owner);
            // Named after the class declaring the field, as field accesses and `views` are.
            Object[] decl = declaring(loader, field.owner, field.name);
            String owner = decl == null ? field.owner : (String) decl[0];
            String name = dotted(owner) + "." + field.name + (stateTypes.contains(type) ? ".<state>" : "[]");
            int var = Names.intern(name);
            int loc = Names.intern(file + ":" + line);
            int tmp = mn.maxLocals++;
            InsnList keep = new InsnList();
            keep.add(new InsnNode(DUP));
            keep.add(new VarInsnNode(ASTORE, tmp));
            code.insert(field, keep);
            InsnList hook = new InsnList();
            hook.add(new VarInsnNode(ALOAD, tmp));
            hook.add(ldc(var));
            hook.add(ldc(effect));
            hook.add(ldc(loc));
            hook.add(rt("jdk", "(Ljava/lang/Object;III)V"));
            code.insertBefore(m, hook);
        }
    }

    /**
     * The effect of a call of a type of the models table, or 0 when it lists none or the agent
     * records the type's calls as what they are: maps' calls (for `commute`), concurrent
     * queues' hand-offs and atomics' accesses are synchronization, which an access of the
     * state would contradict (a plain access of a map's contents would race).
     */
    private int modelled(ClassLoader loader, MethodInsnNode m) {
        int op = m.getOpcode();
        if ((op != INVOKEVIRTUAL && op != INVOKEINTERFACE) || !isJdk(m.owner)
                || m.owner.startsWith("java/util/concurrent/atomic/")
                || isA(loader, m.owner, "java/util/Map")
                || isA(loader, m.owner, "java/util/concurrent/BlockingQueue")
                || m.owner.startsWith("java/util/concurrent/ConcurrentLinked")) {
            return 0;
        }
        String type = simple(m.owner);
        HashMap<String, Integer> methods = models.get(type);
        if (methods == null) {
            return 0;
        }
        int effect = methods.getOrDefault(m.name, JDK_READ | JDK_WRITE);
        return effect | (syncTypes.contains(type) ? JDK_ATOMIC : 0);
    }

    /** The monitor of a synchronized method and the block of an atomic one, on every exit. */
    private void wrap(ClassNode cn, MethodNode mn, String file, int line, boolean sync, boolean atomic) {
        InsnList code = mn.instructions;
        int loc = Names.intern(file + ":" + line);
        boolean isStatic = (mn.access & ACC_STATIC) != 0;
        int label = Names.intern(simple(cn.name) + "." + mn.name);
        InsnList entry = new InsnList();
        LabelNode start = new LabelNode();
        if (sync) {
            entry.add(isStatic ? new LdcInsnNode(Type.getObjectType(cn.name)) : new VarInsnNode(ALOAD, 0));
            entry.add(ldc(loc));
            entry.add(rt("acq", "(Ljava/lang/Object;I)V"));
        }
        if (atomic) {
            entry.add(ldc(label));
            entry.add(ldc(loc));
            entry.add(rt("begin", "(II)V"));
        }
        entry.add(start);
        code.insert(entry);
        for (AbstractInsnNode n = code.getFirst(); n != null; n = n.getNext()) {
            int op = n.getOpcode();
            if (op >= IRETURN && op <= RETURN) {
                code.insertBefore(n, exit(cn, isStatic, sync, atomic, loc));
            }
        }
        LabelNode end = new LabelNode();
        LabelNode handler = new LabelNode();
        code.add(end);
        code.add(handler);
        code.add(exit(cn, isStatic, sync, atomic, loc));
        code.add(new InsnNode(ATHROW));
        // Last in the table: the method's own handlers come first.
        mn.tryCatchBlocks.add(new TryCatchBlockNode(start, end, handler, null));
    }

    private InsnList exit(ClassNode cn, boolean isStatic, boolean sync, boolean atomic, int loc) {
        InsnList x = new InsnList();
        if (atomic) {
            x.add(ldc(loc));
            x.add(rt("end", "(I)V"));
        }
        if (sync) {
            x.add(isStatic ? new LdcInsnNode(Type.getObjectType(cn.name)) : new VarInsnNode(ALOAD, 0));
            x.add(ldc(loc));
            x.add(rt("rel", "(Ljava/lang/Object;I)V"));
        }
        return x;
    }

    private void field(ClassLoader loader, InsnList code, FieldInsnNode f, int loc) {
        if (isJdk(f.owner)) {
            return;
        }
        Object[] decl = declaring(loader, f.owner, f.name);
        if (decl == null) {
            return;
        }
        int access = (Integer) decl[1];
        // Final fields are frozen when their constructor ends (JLS 17.5); synthetic ones are the
        // compiler's (outer instances, assertion flags).
        if ((access & (ACC_FINAL | ACC_SYNTHETIC)) != 0) {
            return;
        }
        boolean vol = (access & ACC_VOLATILE) != 0;
        int var = Names.intern(dotted((String) decl[0]) + "." + f.name);
        int op = f.getOpcode();
        boolean wide = f.desc.equals("J") || f.desc.equals("D");
        InsnList pre = new InsnList();
        if (op == GETSTATIC || op == PUTSTATIC) {
            pre.add(ldc(var));
            if (vol) {
                pre.add(rt("vlockS", "(I)V"));
            } else {
                pre.add(ldc(loc));
                pre.add(rt(op == GETSTATIC ? "rs" : "ws", "(II)V"));
            }
        } else if (op == GETFIELD) {
            pre.add(new InsnNode(DUP));
            pre.add(ldc(var));
            if (vol) {
                pre.add(rt("vlockO", "(Ljava/lang/Object;I)V"));
            } else {
                pre.add(ldc(loc));
                pre.add(rt("rf", "(Ljava/lang/Object;II)V"));
            }
        } else {
            // obj val -> obj val obj
            if (wide) {
                pre.add(new InsnNode(DUP2_X1));
                pre.add(new InsnNode(POP2));
                pre.add(new InsnNode(DUP_X2));
            } else {
                pre.add(new InsnNode(SWAP));
                pre.add(new InsnNode(DUP_X1));
            }
            pre.add(ldc(var));
            if (vol) {
                pre.add(rt("vlockO", "(Ljava/lang/Object;I)V"));
            } else {
                pre.add(ldc(loc));
                pre.add(rt("wf", "(Ljava/lang/Object;II)V"));
            }
        }
        code.insertBefore(f, pre);
        if (vol) {
            InsnList post = new InsnList();
            post.add(new FieldInsnNode(GETSTATIC, RT, op == GETSTATIC || op == GETFIELD ? "V_LOAD" : "V_STORE", "I"));
            post.add(ldc(loc));
            post.add(rt("vdone", "(II)V"));
            code.insert(f, post);
        }
    }

    private static boolean isJdk(String owner) {
        return owner.startsWith("java/") || owner.startsWith("javax/") || owner.startsWith("jdk/")
                || owner.startsWith("sun/") || owner.startsWith("com/sun/");
    }

    /** A modelled call: the helper that replaces it, or null. */
    private void call(ClassLoader loader, InsnList code, MethodInsnNode m, int loc) {
        String owner = m.owner;
        String helperClass = RT;
        String helper = null;
        String recv = null;
        String alternative = null;
        int op = m.getOpcode();
        if (op == INVOKESTATIC) {
            if (owner.equals("java/util/concurrent/CompletableFuture")
                    && (m.name.equals("supplyAsync") || m.name.equals("runAsync"))) {
                helper = m.name;
            }
        } else if (op == INVOKEVIRTUAL || op == INVOKEINTERFACE) {
            if (owner.startsWith("java/util/concurrent/atomic/Atomic")) {
                helperClass = ATOMICS;
                helper = simple(owner) + "_" + m.name;
                recv = owner;
            } else if ((m.name.equals("wait")) && !m.desc.endsWith(")Z")) {
                helper = "wait";
                recv = "java/lang/Object";
            } else if (isJdk(owner) || m.name.equals("start") || m.name.equals("join")) {
                if (isA(loader, owner, "java/lang/Thread")) {
                    recv = "java/lang/Thread";
                } else if (owner.equals("java/util/concurrent/locks/StampedLock")) {
                    recv = owner;
                } else if (isA(loader, owner, "java/util/concurrent/locks/ReentrantReadWriteLock")) {
                    recv = "java/util/concurrent/locks/ReentrantReadWriteLock";
                } else if (isA(loader, owner, "java/util/concurrent/locks/ReadWriteLock")) {
                    recv = "java/util/concurrent/locks/ReadWriteLock";
                } else if (isA(loader, owner, "java/util/concurrent/locks/Lock")) {
                    recv = "java/util/concurrent/locks/Lock";
                } else if (isA(loader, owner, "java/util/concurrent/locks/Condition")) {
                    recv = "java/util/concurrent/locks/Condition";
                } else if (isA(loader, owner, "java/util/concurrent/ExecutorService")) {
                    recv = m.name.equals("execute") ? "java/util/concurrent/Executor" : "java/util/concurrent/ExecutorService";
                } else if (isA(loader, owner, "java/util/concurrent/Executor")) {
                    recv = "java/util/concurrent/Executor";
                } else if (owner.equals("java/util/concurrent/CompletableFuture") && m.name.equals("join")) {
                    recv = owner;
                } else if (isA(loader, owner, "java/util/concurrent/Future")) {
                    recv = "java/util/concurrent/Future";
                } else if (owner.equals("java/util/concurrent/CountDownLatch")
                        || owner.equals("java/util/concurrent/CyclicBarrier")
                        || owner.equals("java/util/concurrent/Semaphore")) {
                    recv = owner;
                } else if (isA(loader, owner, "java/util/Map")) {
                    recv = "java/util/Map";
                } else if (isA(loader, owner, "java/util/concurrent/BlockingQueue")) {
                    recv = "java/util/concurrent/BlockingQueue";
                    // Its Queue methods have their helpers on Queue.
                    alternative = "java/util/Queue";
                } else if (isA(loader, owner, "java/util/Queue")) {
                    recv = "java/util/Queue";
                }
                helper = recv == null ? null : m.name;
            }
        }
        if (helper == null) {
            return;
        }
        Type t = Type.getMethodType(m.desc);
        if (alternative != null && !helpers.contains(helperClass + "." + helper + helperDesc(recv, t))) {
            recv = alternative;
        }
        StringBuilder d = new StringBuilder("(");
        if (recv != null) {
            d.append('L').append(recv).append(';');
        }
        for (Type a : t.getArgumentTypes()) {
            d.append(erase(a));
        }
        d.append("I)").append(erase(t.getReturnType()));
        String desc = d.toString();
        if (!helpers.contains(helperClass + "." + helper + desc)) {
            // A helper returning a wider type than the call site expects: cast back.
            String wide = desc.substring(0, desc.indexOf(')') + 1) + "Ljava/lang/Object;";
            if (t.getReturnType().getSort() == Type.OBJECT && helpers.contains(helperClass + "." + helper + wide)) {
                code.insertBefore(m, ldc(loc));
                code.insertBefore(m, new MethodInsnNode(INVOKESTATIC, helperClass, helper, wide, false));
                code.set(m, new TypeInsnNode(CHECKCAST, t.getReturnType().getInternalName()));
            }
            return;
        }
        code.insertBefore(m, ldc(loc));
        code.set(m, new MethodInsnNode(INVOKESTATIC, helperClass, helper, desc, false));
    }

    private static String helperDesc(String recv, Type t) {
        StringBuilder d = new StringBuilder("(");
        d.append('L').append(recv).append(';');
        for (Type a : t.getArgumentTypes()) {
            d.append(erase(a));
        }
        return d.append("I)").append(erase(t.getReturnType())).toString();
    }

    /** Helper parameters are JDK types: application types pass as Object where erased. */
    private static String erase(Type a) {
        if (a.getSort() == Type.OBJECT || a.getSort() == Type.ARRAY) {
            String n = a.getInternalName();
            if (n.startsWith("java/") && a.getSort() == Type.OBJECT) {
                return a.getDescriptor();
            }
            return "Ljava/lang/Object;";
        }
        return a.getDescriptor();
    }
}
