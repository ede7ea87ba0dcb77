/**
 * UTS trees, node for node the same as bench/uts.go: SplitMix64 states
 * (longs, read as unsigned), integer-only decisions, so every language
 * counts the same nodes. A node is its state and its depth.
 */
final class Tree {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L; // SplitMix64's increment
    private static final long DRAW_SALT = 0x5851F42D4C957F2DL; // a geometric node's draws
    private static final int MAX_KIDS = 100; // UTS's MAXNUMCHILDREN

    private final boolean geometric;
    private final long seed;
    private final int rootKids, m, maxDepth, rounds;
    private final long q, b;

    private Tree(boolean geometric, long seed, int rootKids, int m, long q, long b, int maxDepth, int rounds) {
        this.geometric = geometric;
        this.seed = seed;
        this.rootKids = rootKids;
        this.m = m;
        this.q = q;
        this.b = b;
        this.maxDepth = maxDepth;
        this.rounds = rounds;
    }

    /** The root has b0 children; any other node m with probability q. */
    static Tree binomial(int b0, int m, double q, long seed) {
        return new Tree(false, seed, b0, m, threshold(q), 0, 0, 1);
    }

    /** Geometric, fixed shape: mean b children down to maxDepth. */
    static Tree geometric(double b, int maxDepth, long seed, int rounds) {
        return new Tree(true, seed, 0, 0, 0, threshold(b / (b + 1)), maxDepth, rounds);
    }

    /** bench/wl_uts.go's trees. */
    static Tree binomialTree(int b0) {
        return binomial(b0, 5, 0.2, 38);
    }

    static Tree geometricTree(int depth) {
        return geometric(4, depth, 19, 40);
    }

    /** SplitMix64's output function. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The bound a hash's top 53 bits are compared with for probability p. */
    private static long threshold(double p) {
        return (long) (p * 9007199254740992.0);
    }

    private static boolean hit(long h, long thr) {
        return (h >>> 11) < thr;
    }

    long rootState() {
        return mix(seed + GOLDEN);
    }

    int kids(long state, int depth) {
        if (geometric) {
            if (depth >= maxDepth) {
                return 0;
            }
            int k = 0;
            while (k < MAX_KIDS && hit(mix((state ^ DRAW_SALT) + (k + 1L) * GOLDEN), b)) {
                k++;
            }
            return k;
        }
        if (depth == 0) {
            return rootKids;
        }
        return hit(state, q) ? m : 0;
    }

    /** Child i's state: SplitMix64's (i+1)th output seeded with state, mixed rounds-1 more times. */
    long child(long state, int i) {
        long s = mix(state + (i + 1L) * GOLDEN);
        for (int r = 1; r < rounds; r++) {
            s = mix(s);
        }
        return s;
    }
}
