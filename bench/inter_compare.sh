#!/bin/sh
# bench/inter_compare.sh — communicator creation and intercommunicator collectives (bench/
# comm_create.c) for two ampi builds and Open MPI, interleaved round by round so all see the same
# load; prints each round's figures (us per call) and the medians over the rounds per build.
#   bench/inter_compare.sh OLD_BUILD NEW_BUILD [rounds=5] [vp=4]
# Layouts: all ranks in one process (--vp VP) and two processes (-np 2 --vp VP); Open MPI runs VP
# processes (--oversubscribe). A build without intercommunicators prints n/a for them.
set -eu
OLD=${1:?usage: inter_compare.sh OLD_BUILD NEW_BUILD [rounds] [vp]}
NEW=${2:?usage: inter_compare.sh OLD_BUILD NEW_BUILD [rounds] [vp]}
ROUNDS=${3:-5}
VP=${4:-4}
SRC=$(dirname "$0")/comm_create.c
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$OLD/bin/mpicc" -O2 -o "$T/old" "$SRC"
"$NEW/bin/mpicc" -O2 -o "$T/new" "$SRC"
have_ompi=0
if command -v mpicc.openmpi >/dev/null 2>&1; then
  mpicc.openmpi -O2 -o "$T/ompi" "$SRC" && have_ompi=1
fi
for r in $(seq "$ROUNDS"); do
  for np in 1 2; do
    "$OLD/bin/ampirun" -np $np --vp "$VP" "$T/old" 2>/dev/null | sed "s/^/old np$np /"
    "$NEW/bin/ampirun" -np $np --vp "$VP" "$T/new" 2>/dev/null | sed "s/^/new np$np /"
  done
  if [ $have_ompi = 1 ]; then
    mpirun.openmpi --allow-run-as-root --oversubscribe -np "$VP" "$T/ompi" 2>/dev/null |
      sed "s/^/ompi np$VP /"
  fi
done >"$T/all"
echo "# medians over $ROUNDS rounds, us per call ($VP ranks)"
awk '{ k = $1 " " $2 " " $3; v[k] = v[k] " " $4 } END { for (k in v) print k, v[k] }' "$T/all" |
  sort | while read -r b l w vals; do
    med=$(echo "$vals" | tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : "n/a") }')
    echo "$w $b $l $med"
  done | sort
