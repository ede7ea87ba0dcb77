import java.util.concurrent.RecursiveTask;

/** UTS with a task per child: fork each and join them, or invokeAll. */
final class Uts {
    private Uts() {}

    static long seq(Tree t, long state, int depth) {
        long count = 1;
        int k = t.kids(state, depth);
        for (int i = 0; i < k; i++) {
            count += seq(t, t.child(state, i), depth + 1);
        }
        return count;
    }

    /** Forks every child, then joins them newest first. */
    static final class ForkJoin extends RecursiveTask<Long> {
        final Tree t;
        final long state;
        final int depth;

        ForkJoin(Tree t, long state, int depth) {
            this.t = t;
            this.state = state;
            this.depth = depth;
        }

        @Override
        protected Long compute() {
            int k = t.kids(state, depth);
            ForkJoin[] kids = new ForkJoin[k];
            for (int i = 0; i < k; i++) {
                kids[i] = new ForkJoin(t, t.child(state, i), depth + 1);
                kids[i].fork();
            }
            long count = 1;
            for (int i = k - 1; i >= 0; i--) {
                count += kids[i].join();
            }
            return count;
        }
    }

    /** invokeAll over the children, then their results. */
    static final class InvokeAll extends RecursiveTask<Long> {
        final Tree t;
        final long state;
        final int depth;

        InvokeAll(Tree t, long state, int depth) {
            this.t = t;
            this.state = state;
            this.depth = depth;
        }

        @Override
        protected Long compute() {
            int k = t.kids(state, depth);
            InvokeAll[] kids = new InvokeAll[k];
            for (int i = 0; i < k; i++) {
                kids[i] = new InvokeAll(t, t.child(state, i), depth + 1);
            }
            invokeAll(kids);
            long count = 1;
            for (InvokeAll c : kids) {
                count += c.join();
            }
            return count;
        }
    }
}
