import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.function.LongSupplier;

/**
 * fib and UTS on java.util.concurrent.ForkJoinPool, for steal's cross-language comparison.
 *
 * <pre>java -Xss256m -cp build Xlang KERNEL IMPL PARAM WARMUP REPS THREADS</pre>
 *
 * runs WARMUP untimed and REPS timed iterations on a ForkJoinPool of THREADS workers and prints
 * one JSON line with the result and each time in ns. bench/cmd/xlang runs it; see
 * bench/xlang/README.md.
 */
public final class Xlang {
    private static final String USAGE = "usage: Xlang KERNEL IMPL PARAM WARMUP REPS THREADS\n"
            + "  fib     PARAM = n:     java-seq, java-forkjoin, java-invokeall\n"
            + "  uts-bin PARAM = b0:    java-seq, java-forkjoin, java-invokeall\n"
            + "  uts-geo PARAM = depth: java-seq, java-forkjoin, java-invokeall";

    private Xlang() {}

    private static void fail(String msg) {
        System.err.println("Xlang: " + msg + "\n" + USAGE);
        System.exit(2);
    }

    private static int number(String s, String what) {
        try {
            int v = Integer.parseInt(s);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        fail(what + " must be a non-negative integer, not \"" + s + "\"");
        return 0;
    }

    /** The work for (kernel, impl, param) on pool, or null if there is no such pair. */
    private static LongSupplier kernel(String kernel, String impl, int param, ForkJoinPool pool) {
        if (kernel.equals("fib")) {
            switch (impl) {
                case "java-seq": return () -> Fib.seq(param);
                case "java-forkjoin": return () -> pool.invoke(new Fib.ForkJoin(param));
                case "java-invokeall": return () -> pool.invoke(new Fib.InvokeAll(param));
                default: return null;
            }
        }
        Tree t;
        switch (kernel) {
            case "uts-bin": t = Tree.binomialTree(param); break;
            case "uts-geo": t = Tree.geometricTree(param); break;
            default: return null;
        }
        long root = t.rootState();
        switch (impl) {
            case "java-seq": return () -> Uts.seq(t, root, 0);
            case "java-forkjoin": return () -> pool.invoke(new Uts.ForkJoin(t, root, 0));
            case "java-invokeall": return () -> pool.invoke(new Uts.InvokeAll(t, root, 0));
            default: return null;
        }
    }

    public static void main(String[] args) {
        if (args.length != 6) {
            fail("want 6 arguments");
        }
        int param = number(args[2], "PARAM");
        int warmup = number(args[3], "WARMUP"), reps = number(args[4], "REPS"), threads = number(args[5], "THREADS");
        if (reps == 0 || threads == 0) {
            fail("REPS and THREADS must be at least 1");
        }
        ForkJoinPool pool = new ForkJoinPool(threads);
        LongSupplier work = kernel(args[0], args[1], param, pool);
        if (work == null) {
            fail("no implementation \"" + args[1] + "\" of kernel \"" + args[0] + "\"");
        }
        long result = 0;
        List<String> times = new ArrayList<>();
        for (int i = 0; i < warmup + reps; i++) {
            long t0 = System.nanoTime();
            long r = work.getAsLong();
            long ns = System.nanoTime() - t0;
            if (i > 0 && r != result) {
                System.err.println("Xlang: iteration " + i + " gave " + r + ", an earlier one " + result);
                System.exit(1);
            }
            result = r;
            if (i >= warmup) {
                times.add(Long.toString(ns));
            }
        }
        pool.shutdown();
        System.out.printf("{\"lang\":\"java\",\"kernel\":\"%s\",\"impl\":\"%s\",\"param\":%d,\"threads\":%d,\"result\":%d,\"ns\":[%s]}%n",
                args[0], args[1], param, threads, result, String.join(",", times));
    }
}
