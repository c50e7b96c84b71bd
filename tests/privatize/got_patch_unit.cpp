// tests/privatize/got_patch_unit.cpp — privatize::patch_got on the running test program: its
// calls of a libc function through the PLT (getppid) are pointed at a replacement, and calls of
// other functions are not touched. (The library uses it for the CUDA runtime's cudaDeviceReset in
// the program and its per-rank copies; tests/gpu/gpu_runtime.cu checks that on a GPU.)
#include "privatize/got_patch.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace {

pid_t fake_getppid() {
  return 424242;
}

} // namespace

TEST(GotPatch, RedirectsPltCalls) {
  const link_map *program = ampi::privatize::program_link_map();
  ASSERT_NE(program, nullptr);
  const pid_t self = getpid();
  ASSERT_NE(getppid(), 424242);
  EXPECT_GE(
      ampi::privatize::patch_got(*program, "getppid", reinterpret_cast<void *>(&fake_getppid)), 1);
  EXPECT_EQ(getppid(), 424242);
  EXPECT_EQ(getpid(), self); // another function: untouched
  // A name the program does not import: nothing to rewrite.
  EXPECT_EQ(ampi::privatize::patch_got(*program, "no_such_function_anywhere",
                                       reinterpret_cast<void *>(&fake_getppid)),
            0);
}
