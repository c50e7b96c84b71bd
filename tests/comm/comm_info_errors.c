/* tests/comm/comm_info_errors.c — MPI_Info objects (set, get with truncation, valuelen, nkeys,
 * nthkey in insertion order, delete, dup independence, free, MPI_INFO_ENV and the error classes
 * for bad keys, values and handles); error classes, codes and strings a program adds
 * (MPI_Add_error_class/code/string, MPI_Error_class/string on them, a user error handler called
 * through MPI_Comm_call_errhandler with them); and the version and processor-name queries. */
#define _POSIX_C_SOURCE 200809L /* gethostname */

#include "mpitest.h"

#include <unistd.h>

/* Records the call in the communicator's name (no global state: ranks share the process). */
static void naming_handler(MPI_Comm *comm, int *code, ...) {
  char name[MPI_MAX_OBJECT_NAME];
  snprintf(name, sizeof name, "handler saw %d", *code);
  MPI_Comm_set_name(*comm, name);
}

int main(int argc, char **argv) {
  int rank, size, flag, n, len, i;
  char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
  char longkey[MPI_MAX_INFO_KEY + 2], longval[MPI_MAX_INFO_VAL + 2];
  MPI_Info info, dup;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* ---- info ---- */
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 0, "a new info is empty");
  CHECK_MPI(MPI_Info_set(info, "b_key", "first"));
  CHECK_MPI(MPI_Info_set(info, "a_key", "second value"));
  CHECK_MPI(MPI_Info_set(info, "c_key", "3"));
  CHECK_MPI(MPI_Info_set(info, "b_key", "replaced")); /* keeps its place */
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 3, "3 keys, got %d", n);
  {
    const char *order[3] = {"b_key", "a_key", "c_key"};
    for (i = 0; i < 3; ++i) {
      CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
      CHECK(strcmp(key, order[i]) == 0, "key %d is '%s', expected '%s'", i, key, order[i]);
    }
  }
  CHECK_MPI(MPI_Info_get(info, "b_key", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && strcmp(value, "replaced") == 0, "b_key='%s'", value);
  CHECK_MPI(MPI_Info_get_valuelen(info, "a_key", &len, &flag));
  CHECK(flag && len == 12, "valuelen of a_key %d", len);
  memset(value, 'x', sizeof value);
  CHECK_MPI(MPI_Info_get(info, "a_key", 6, value, &flag)); /* truncated to 6 characters */
  CHECK(flag && strcmp(value, "second") == 0, "truncated get '%s'", value);
  CHECK_MPI(MPI_Info_get(info, "nope", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(!flag, "absent key");
  CHECK_MPI(MPI_Info_get_valuelen(info, "nope", &len, &flag));
  CHECK(!flag, "absent key valuelen");

  /* dup is independent of the original. */
  CHECK_MPI(MPI_Info_dup(info, &dup));
  CHECK_MPI(MPI_Info_delete(info, "a_key"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 2, "2 keys after delete, got %d", n);
  CHECK_MPI(MPI_Info_get_nkeys(dup, &n));
  CHECK(n == 3, "the dup keeps 3 keys, got %d", n);
  CHECK_MPI(MPI_Info_get(dup, "a_key", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && strcmp(value, "second value") == 0, "dup a_key '%s'", value);

  /* errors */
  memset(longkey, 'k', sizeof longkey);
  longkey[MPI_MAX_INFO_KEY + 1] = '\0';
  memset(longval, 'v', sizeof longval);
  longval[MPI_MAX_INFO_VAL + 1] = '\0';
  CHECK(mt_class(MPI_Info_set(info, longkey, "x")) == MPI_ERR_INFO_KEY, "key too long");
  CHECK(mt_class(MPI_Info_set(info, "", "x")) == MPI_ERR_INFO_KEY, "empty key");
  CHECK(mt_class(MPI_Info_set(info, "k", longval)) == MPI_ERR_INFO_VALUE, "value too long");
  CHECK(mt_class(MPI_Info_delete(info, "a_key")) == MPI_ERR_INFO_NOKEY, "delete an absent key");
  CHECK(mt_class(MPI_Info_get_nthkey(info, 2, key)) == MPI_ERR_ARG, "nthkey past the end");
  CHECK(mt_class(MPI_Info_get_nthkey(info, -1, key)) == MPI_ERR_ARG, "nthkey -1");
  CHECK(mt_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &n)) == MPI_ERR_INFO, "MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_free(&dup));
  CHECK(dup == MPI_INFO_NULL, "free sets MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_free(&info));

  /* MPI_INFO_ENV: readable, holds the number of ranks and the command; cannot be changed. */
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && atoi(value) == size, "MPI_INFO_ENV maxprocs '%s'", flag ? value : "");
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && strstr(value, "comm_info_errors") != NULL, "MPI_INFO_ENV command '%s'", value);
  CHECK(mt_class(MPI_Info_set(MPI_INFO_ENV, "x", "y")) == MPI_ERR_INFO, "MPI_INFO_ENV is fixed");
  info = MPI_INFO_ENV;
  CHECK(mt_class(MPI_Info_free(&info)) == MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");

  /* ---- user error classes, codes and strings ---- */
  {
    int cls, code1, code2, c, lastused;
    int *p;
    char s[MPI_MAX_ERROR_STRING];
    char toolong[MPI_MAX_ERROR_STRING + 1];
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_LASTCODE, "a new class %d is above MPI_ERR_LASTCODE", cls);
    CHECK_MPI(MPI_Add_error_code(cls, &code1));
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &code2)); /* a code of a predefined class */
    CHECK(code1 != cls && code2 != code1 && code2 > MPI_ERR_LASTCODE, "distinct codes");
    CHECK_MPI(MPI_Error_class(code1, &c));
    CHECK(c == cls, "class of code1 %d, expected %d", c, cls);
    CHECK_MPI(MPI_Error_class(cls, &c));
    CHECK(c == cls, "a class is its own class");
    CHECK_MPI(MPI_Error_class(code2, &c));
    CHECK(c == MPI_ERR_ARG, "class of code2 %d", c);
    CHECK_MPI(MPI_Add_error_string(code1, "the first user error"));
    CHECK_MPI(MPI_Error_string(code1, s, &len));
    CHECK(strcmp(s, "the first user error") == 0 && len == 20, "string '%s' (%d)", s, len);
    CHECK_MPI(MPI_Add_error_string(code1, "replaced"));
    CHECK_MPI(MPI_Error_string(code1, s, &len));
    CHECK(strcmp(s, "replaced") == 0, "replaced string '%s'", s);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    lastused = *p;
    CHECK(flag && lastused == code2, "MPI_LASTUSEDCODE %d, expected %d", lastused, code2);
    CHECK(mt_class(MPI_Add_error_string(MPI_ERR_ARG, "no")) == MPI_ERR_ARG,
          "strings of predefined codes are fixed");
    memset(toolong, 'e', sizeof toolong);
    toolong[MPI_MAX_ERROR_STRING] = '\0';
    CHECK(mt_class(MPI_Add_error_string(code1, toolong)) == MPI_ERR_ARG, "string too long");
    CHECK(mt_class(MPI_Add_error_code(code1, &c)) == MPI_ERR_ARG, "code1 is not a class");
    CHECK(mt_class(MPI_Add_error_code(lastused + 100, &c)) == MPI_ERR_ARG, "not a class");
    CHECK(mt_class(MPI_Error_class(lastused + 100, &c)) == MPI_ERR_ARG, "not a code");

    /* A user handler sees the user code; under MPI_ERRORS_RETURN the call just returns. */
    {
      MPI_Errhandler eh;
      MPI_Comm d;
      char name[MPI_MAX_OBJECT_NAME], want[MPI_MAX_OBJECT_NAME];
      CHECK_MPI(MPI_Comm_create_errhandler(naming_handler, &eh));
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
      CHECK_MPI(MPI_Comm_set_errhandler(d, eh));
      CHECK_MPI(MPI_Errhandler_free(&eh));
      CHECK_MPI(MPI_Comm_call_errhandler(d, code1));
      CHECK_MPI(MPI_Comm_get_name(d, name, &len));
      snprintf(want, sizeof want, "handler saw %d", code1);
      CHECK(strcmp(name, want) == 0, "the handler ran with code1: name '%s'", name);
      CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code2));
      CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
      CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "MPI_ERRORS_RETURN calls nothing");
      CHECK_MPI(MPI_Comm_free(&d));
    }
  }

  /* ---- version queries and the processor name ---- */
  {
    int v = 0, sv = -1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME], mine[256];
    CHECK_MPI(MPI_Get_version(&v, &sv));
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION && v >= 3, "version %d.%d", v, sv);
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len == (int)strlen(lib), "library version '%s'", lib);
    CHECK_MPI(MPI_Get_processor_name(host, &len));
    CHECK(gethostname(mine, sizeof mine) == 0, "gethostname");
    CHECK(strcmp(host, mine) == 0 && len == (int)strlen(mine), "processor name '%s' vs '%s'", host,
          mine);
  }

  mt_ok("comm_info_errors");
  MPI_Finalize();
  return 0;
}
