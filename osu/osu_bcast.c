/* osu/osu_bcast.c — our osu_bcast (see osu_coll.c for the method and the output). */
#include "osu_coll.h"

int main(int argc, char **argv) {
  return osu_coll_main(argc, argv, OSU_OP_BCAST);
}
