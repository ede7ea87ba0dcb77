//! UTS trees, node for node the same as bench/uts.go: SplitMix64 states,
//! integer-only decisions, so every language counts the same nodes.

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15; // SplitMix64's increment
const DRAW_SALT: u64 = 0x5851_F42D_4C95_7F2D; // a geometric node's draws
const MAX_KIDS: usize = 100; // UTS's MAXNUMCHILDREN

/// SplitMix64's output function.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The bound a hash's top 53 bits are compared with for probability p.
fn threshold(p: f64) -> u64 {
    (p * 9_007_199_254_740_992.0) as u64
}

#[inline]
fn hit(h: u64, thr: u64) -> bool {
    (h >> 11) < thr
}

#[derive(Clone, Copy)]
pub struct Node {
    state: u64,
    depth: i32,
}

pub struct Tree {
    geometric: bool,
    seed: u64,
    root_kids: usize,
    m: usize,
    q: u64,
    b: u64,
    max_depth: i32,
    rounds: u32,
}

impl Tree {
    /// The root has b0 children; any other node m with probability q.
    pub fn binomial(b0: usize, m: usize, q: f64, seed: u64) -> Tree {
        Tree {
            geometric: false,
            seed,
            root_kids: b0,
            m,
            q: threshold(q),
            b: 0,
            max_depth: 0,
            rounds: 1,
        }
    }

    /// Geometric, fixed shape: mean b children down to max_depth.
    pub fn geometric(b: f64, max_depth: i32, seed: u64, rounds: u32) -> Tree {
        Tree {
            geometric: true,
            seed,
            root_kids: 0,
            m: 0,
            q: 0,
            b: threshold(b / (b + 1.0)),
            max_depth,
            rounds,
        }
    }

    pub fn root(&self) -> Node {
        Node {
            state: mix(self.seed.wrapping_add(GOLDEN)),
            depth: 0,
        }
    }

    pub fn kids(&self, n: Node) -> usize {
        if self.geometric {
            if n.depth >= self.max_depth {
                return 0;
            }
            let mut k = 0;
            while k < MAX_KIDS
                && hit(
                    mix((n.state ^ DRAW_SALT).wrapping_add((k as u64 + 1).wrapping_mul(GOLDEN))),
                    self.b,
                )
            {
                k += 1;
            }
            return k;
        }
        if n.depth == 0 {
            self.root_kids
        } else if hit(n.state, self.q) {
            self.m
        } else {
            0
        }
    }

    /// Child i: SplitMix64's (i+1)th output seeded with n's state, put
    /// through mix rounds-1 more times (the node's work).
    #[inline]
    pub fn child(&self, n: Node, i: usize) -> Node {
        let mut s = mix(n.state.wrapping_add((i as u64 + 1).wrapping_mul(GOLDEN)));
        for _ in 1..self.rounds {
            s = mix(s);
        }
        Node {
            state: s,
            depth: n.depth + 1,
        }
    }
}

/// bench/wl_uts.go's trees: binomial m = 5, q = 0.2, seed 38; geometric
/// b = 4, seed 19, 40 rounds a node.
pub fn binomial_tree(b0: usize) -> Tree {
    Tree::binomial(b0, 5, 0.2, 38)
}

pub fn geometric_tree(depth: i32) -> Tree {
    Tree::geometric(4.0, depth, 19, 40)
}
