/* osu/osu_coll.h — the shared driver of our OSU-compatible collective benchmarks: each
 * osu_<collective>.c is a main() that calls osu_coll_main with its operation. */
#ifndef OSU_COLL_H
#define OSU_COLL_H

enum osu_coll_op {
  OSU_OP_BARRIER,
  OSU_OP_BCAST,
  OSU_OP_REDUCE,
  OSU_OP_ALLREDUCE,
  OSU_OP_ALLGATHER,
  OSU_OP_ALLTOALL
};

int osu_coll_main(int argc, char **argv, enum osu_coll_op op);

#endif
