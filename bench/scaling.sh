#!/usr/bin/env bash
# Scaling sweep: the pool's Go benchmarks at GOMAXPROCS 1, 2, 4, 8 and 16,
# and the bench harness (steal beside its peers) at W = 4 and 16.
#
#   bash bench/scaling.sh [bin-dir] [out-dir]
#
# bin-dir holds steal.test and bench, built from the repository root with
#
#   go test -c -o bin/steal.test . && (cd bench && go build -o ../bin/bench .)
#
# so that the sweep runs on a machine without Go. out-dir receives one text
# file per part; docs/scaling.md quotes them. Each part has its own time
# limit, so a hang costs that part only. PARTS, CPUS and HARNESS_W choose
# what runs.
set -u
bin=${1:-.devbin}
out=${2:-/tmp/scaling}
cpus=${CPUS:-1,2,4,8,16}
parts=${PARTS:-submit forkjoin harness}
mkdir -p "$out"
{
	nproc
	grep -m1 'model name' /proc/cpuinfo
	uname -sr
} >"$out/machine.txt" 2>&1

gobench() { # name pattern
	timeout 240 "$bin/steal.test" -test.run XXX -test.bench "$2" \
		-test.cpu "$cpus" -test.benchtime 3x -test.count 1 >"$out/$1.txt" 2>&1
}
for part in $parts; do
	case $part in
	submit) gobench submit 'BenchmarkSubmitProducers' ;;
	forkjoin) gobench forkjoin 'BenchmarkJoin$|BenchmarkUTS$' ;;
	harness)
		for w in ${HARNESS_W:-4 16}; do
			GOMAXPROCS=$w timeout 150 "$bin/bench" -runs 3 -json \
				-impl steal,steal-join,steal-group,goroutines,errgroup,pond,ants,conc,channel,sequential \
				spawn8 fib uts-geo sort >"$out/harness-w$w.jsonl" 2>&1
		done
		;;
	esac
done
