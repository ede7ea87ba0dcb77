//! fib and UTS, sequential and on Rayon, each the way its documentation
//! shows: rayon::join for a fork, par_iter over a node's children, and
//! rayon::scope with a spawn per child.

use crate::uts::{Node, Tree};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

/// A join on every call, no cutoff.
pub fn fib_join(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_join(n - 1), || fib_join(n - 2));
    a + b
}

pub fn uts_seq(t: &Tree, n: Node) -> u64 {
    let mut count = 1;
    for i in 0..t.kids(n) {
        count += uts_seq(t, t.child(n, i));
    }
    count
}

/// rayon::join over a binary split of the children, as Fork2 in Go.
pub fn uts_join(t: &Tree, n: Node) -> u64 {
    let k = t.kids(n);
    if k == 0 {
        return 1;
    }
    1 + uts_join_span(t, n, 0, k)
}

fn uts_join_span(t: &Tree, n: Node, lo: usize, hi: usize) -> u64 {
    if hi - lo == 1 {
        return uts_join(t, t.child(n, lo));
    }
    let mid = (lo + hi) / 2;
    let (a, b) = rayon::join(
        || uts_join_span(t, n, lo, mid),
        || uts_join_span(t, n, mid, hi),
    );
    a + b
}

/// A parallel iterator over the children; Rayon decides how to split.
pub fn uts_par_iter(t: &Tree, n: Node) -> u64 {
    let k = t.kids(n);
    if k == 0 {
        return 1;
    }
    1 + (0..k)
        .into_par_iter()
        .map(|i| uts_par_iter(t, t.child(n, i)))
        .sum::<u64>()
}

/// A scope per node and a spawn per child, which adds its count.
pub fn uts_scope(t: &Tree, n: Node) -> u64 {
    let k = t.kids(n);
    if k == 0 {
        return 1;
    }
    let total = AtomicU64::new(1);
    rayon::scope(|s| {
        for i in 0..k {
            let total = &total;
            s.spawn(move |_| {
                total.fetch_add(uts_scope(t, t.child(n, i)), Ordering::Relaxed);
            });
        }
    });
    total.into_inner()
}
