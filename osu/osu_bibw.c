/* osu/osu_bibw.c — our osu_bibw: osu_bw.c built in its bi-directional mode. */
#define OSU_BUILD_BIBW 1
#include "osu_bw.c"
