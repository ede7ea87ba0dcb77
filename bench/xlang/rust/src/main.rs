//! xlang: fib and UTS on Rayon, for steal's cross-language comparison.
//!
//!     xlang KERNEL IMPL PARAM WARMUP REPS THREADS
//!
//! runs WARMUP untimed and REPS timed iterations on a pool of THREADS
//! workers and prints one JSON line with the result and each time in ns.
//! bench/cmd/xlang runs it; see bench/xlang/README.md.

mod kernels;
mod uts;

use std::process::exit;
use std::time::Instant;

const USAGE: &str = "usage: xlang KERNEL IMPL PARAM WARMUP REPS THREADS\n\
  fib     PARAM = n:     rust-seq, rayon-join\n\
  uts-bin PARAM = b0:    rust-seq, rayon-join, rayon-par_iter, rayon-scope\n\
  uts-geo PARAM = depth: rust-seq, rayon-join, rayon-par_iter, rayon-scope";

fn fail(msg: &str) -> ! {
    eprintln!("xlang: {}\n{}", msg, USAGE);
    exit(2);
}

fn number(s: &str, what: &str) -> u64 {
    s.parse().unwrap_or_else(|_| {
        fail(&format!(
            "{} must be a non-negative integer, not {:?}",
            what, s
        ))
    })
}

/// The work for (kernel, impl, param), or None if there is no such pair.
fn kernel(kernel: &str, imp: &str, param: u64) -> Option<Box<dyn Fn() -> u64 + Sync>> {
    use kernels::*;
    let tree = match kernel {
        "fib" => {
            return match imp {
                "rust-seq" => Some(Box::new(move || fib_seq(param))),
                "rayon-join" => Some(Box::new(move || fib_join(param))),
                _ => None,
            }
        }
        "uts-bin" => uts::binomial_tree(param as usize),
        "uts-geo" => uts::geometric_tree(param as i32),
        _ => return None,
    };
    let walk: fn(&uts::Tree, uts::Node) -> u64 = match imp {
        "rust-seq" => uts_seq,
        "rayon-join" => uts_join,
        "rayon-par_iter" => uts_par_iter,
        "rayon-scope" => uts_scope,
        _ => return None,
    };
    Some(Box::new(move || walk(&tree, tree.root())))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 6 {
        fail("want 6 arguments");
    }
    let param = number(&args[2], "PARAM");
    let (warmup, reps, threads) = (
        number(&args[3], "WARMUP"),
        number(&args[4], "REPS"),
        number(&args[5], "THREADS"),
    );
    if reps == 0 || threads == 0 {
        fail("REPS and THREADS must be at least 1");
    }
    let work = kernel(&args[0], &args[1], param).unwrap_or_else(|| {
        fail(&format!(
            "no implementation {:?} of kernel {:?}",
            args[1], args[0]
        ))
    });
    // Deep trees recurse thousands of levels: give workers room.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads as usize)
        .stack_size(256 << 20)
        .build()
        .unwrap_or_else(|e| fail(&format!("thread pool: {}", e)));
    let sequential = args[1] == "rust-seq";
    let mut result = None;
    let mut times = Vec::new();
    for i in 0..warmup + reps {
        let t0 = Instant::now();
        let r = if sequential {
            work()
        } else {
            pool.install(&work)
        };
        let ns = t0.elapsed().as_nanos();
        if matches!(result, Some(prev) if prev != r) {
            eprintln!(
                "xlang: iteration {} gave {}, an earlier one {}",
                i,
                r,
                result.unwrap()
            );
            exit(1);
        }
        result = Some(r);
        if i >= warmup {
            times.push(ns.to_string());
        }
    }
    println!(
        "{{\"lang\":\"rust\",\"kernel\":\"{}\",\"impl\":\"{}\",\"param\":{},\"threads\":{},\"result\":{},\"ns\":[{}]}}",
        args[0],
        args[1],
        param,
        threads,
        result.unwrap(),
        times.join(",")
    );
}
