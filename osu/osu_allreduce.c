/* osu/osu_allreduce.c — our osu_allreduce (see osu_coll.c for the method and the output). */
#include "osu_coll.h"

int main(int argc, char **argv) {
  return osu_coll_main(argc, argv, OSU_OP_ALLREDUCE);
}
