#!/bin/sh
# Two virtual ranks of one process, bench/pingpong 4 KiB-4 MiB, the build before this session's
# copy change (OLD) and after (NEW) alternating round by round, at receive-buffer skews 0, 16
# (the destination 16 bytes past the source mod 4 KiB) and 3700 (396 bytes below it).
#   pingpong_ab.sh OLD_BUILD NEW_BUILD ROUNDS > pingpong_ab.txt
OLD=$1 NEW=$2 R=${3:-6}
for r in $(seq "$R"); do
  for skew in 0 16 3700; do
    for b in "$OLD" "$NEW"; do
      echo "# round $r skew $skew build $b"
      PINGPONG_SKEW=$skew LD_LIBRARY_PATH=$b/lib timeout 120 "$b/bin/ampirun" -np 1 --vp 2 \
        "$b/bench/pingpong" 4096 4194304 5
    done
  done
done
