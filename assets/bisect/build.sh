#!/bin/sh
# benchtui bisect's build of one revision: run in a git worktree at the
# revision, with the revision's build folder (${OUT}) as $1.  No shell
# runs this line by line for benchtui: bisect execs it with its argv.
# Here a plain C program; for a make project: make -j2 && cp prog "$1/".
set -e
out=${1:?usage: build.sh OUT}
mkdir -p "$out"
cc -O2 -o "$out/prog" ./*.c
