import java.util.concurrent.RecursiveTask;

/** fib with a fork on every call, no cutoff: the RecursiveTask javadoc's example, and invokeAll. */
final class Fib {
    private Fib() {}

    static int seq(int n) {
        return n <= 1 ? n : seq(n - 1) + seq(n - 2);
    }

    /** fork f1, compute f2 here, join f1: RecursiveTask's documented example. */
    static final class ForkJoin extends RecursiveTask<Integer> {
        final int n;

        ForkJoin(int n) {
            this.n = n;
        }

        @Override
        protected Integer compute() {
            if (n <= 1) {
                return n;
            }
            ForkJoin f1 = new ForkJoin(n - 1);
            f1.fork();
            ForkJoin f2 = new ForkJoin(n - 2);
            return f2.compute() + f1.join();
        }
    }

    /** invokeAll(f1, f2), then both results. */
    static final class InvokeAll extends RecursiveTask<Integer> {
        final int n;

        InvokeAll(int n) {
            this.n = n;
        }

        @Override
        protected Integer compute() {
            if (n <= 1) {
                return n;
            }
            InvokeAll f1 = new InvokeAll(n - 1);
            InvokeAll f2 = new InvokeAll(n - 2);
            invokeAll(f1, f2);
            return f1.join() + f2.join();
        }
    }
}
