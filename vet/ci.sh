#!/usr/bin/env bash
# ci.sh: checks for the stealvet module (vet/), separate from the root
# module's CI because it is a module of its own.
set -euo pipefail
cd "$(dirname "$0")"

echo "== vet: gofmt"
bad=$(gofmt -l .)
if [ -n "$bad" ]; then echo "gofmt would change:"; echo "$bad"; exit 1; fi

echo "== vet: go mod tidy -diff"
go mod tidy -diff

echo "== vet: go vet"
go vet ./...

echo "== vet: go test"
go test -count=1 ./...
