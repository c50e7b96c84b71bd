// tests/handles/handle_table_test.cpp — unit tests of src/handles/handle.hpp: handle encoding
// per kind, and HandleTable's lookup, reuse, removal and iteration for pointer and value slots.
#include "handles/handle.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace h = ampi::handles;
namespace kind = ampi::handles::kind;

namespace {

// The values mpi.h gives (src/handles/kinds.cpp checks them against mpi.h itself).
constexpr h::Handle kCommWorld = 0x44000000, kCommSelf = 0x44000001, kCommNull = 0x04000000;
constexpr h::Handle kWinNull = 0x20000000, kErrorsReturn = 0x54000001, kNoOp = 0x5800000e;
constexpr h::Handle kInfoEnv = 0x5c000001;

TEST(HandleKind, EncodeGivesMpiValues) {
  EXPECT_EQ(h::encode(kind::comm, 0), kCommWorld);
  EXPECT_EQ(h::encode(kind::comm, 1), kCommSelf);
  EXPECT_EQ(h::encode(kind::request, 5), 0x6c000005);
  EXPECT_EQ(h::encode(kind::datatype, 0x10), static_cast<h::Handle>(0x8c000010u));
  EXPECT_EQ(h::encode(kind::op, 0), 0x58000100);
  EXPECT_EQ(h::encode(kind::errhandler, 0), 0x54000002);
  EXPECT_EQ(h::encode(kind::window, 0), 0x20000001);
  EXPECT_EQ(h::encode(kind::info, 0), kInfoEnv);
  EXPECT_EQ(h::encode(kind::keyval, 3), 0x65000003);
  EXPECT_EQ(h::encode(kind::message, 2), 0x74000002);
  // Generations live above the slot number, below the prefix.
  EXPECT_EQ(h::encode(kind::message, 2, 1), 0x74040002);
  EXPECT_EQ(h::encode(kind::window, 0, h::kGenerationMask), 0x20fc0001);
}

TEST(HandleKind, DecodeRoundTripsAndRejectsOtherKinds) {
  for (std::uint32_t i : {0u, 1u, 77u, h::capacity(kind::op) - 1}) {
    EXPECT_EQ(h::decode(kind::op, h::encode(kind::op, i)), i);
    EXPECT_TRUE(h::is_kind(kind::op, h::encode(kind::op, i)));
  }
  // Predefined objects that share a prefix are not the table's.
  EXPECT_FALSE(h::is_kind(kind::op, kNoOp));
  EXPECT_FALSE(h::is_kind(kind::errhandler, kErrorsReturn));
  EXPECT_FALSE(h::is_kind(kind::window, kWinNull));
  // Null handles and other kinds.
  EXPECT_FALSE(h::is_kind(kind::comm, kCommNull));
  EXPECT_FALSE(h::is_kind(kind::comm, h::encode(kind::group, 0)));
  EXPECT_FALSE(h::is_kind(kind::request, h::encode(kind::comm, 3)));
  EXPECT_FALSE(h::is_kind(kind::keyval, 0x64400001)); // MPI_TAG_UB
  // A handle one prefix above, whose low bits are small: still out of range after `first`.
  EXPECT_FALSE(h::is_kind(kind::op, 0x59000010));
  EXPECT_GE(h::decode(kind::op, 0x59000010), h::capacity(kind::op));
  EXPECT_FALSE(h::is_kind(kind::comm, -1));
  EXPECT_FALSE(h::is_kind(kind::comm, 0));
}

struct Obj {
  explicit Obj(int v, int *destroyed = nullptr) : value(v), destroyed(destroyed) {}
  ~Obj() {
    if (destroyed) ++*destroyed;
  }
  int value;
  int *destroyed;
};

using UniqueTable = h::HandleTable<std::unique_ptr<Obj>, kind::comm>;

TEST(HandleTable, InsertGivesConsecutiveHandlesFromFirst) {
  h::HandleTable<std::unique_ptr<Obj>, kind::window> windows;
  EXPECT_EQ(windows.insert(std::make_unique<Obj>(1)), 0x20000001);
  EXPECT_EQ(windows.insert(std::make_unique<Obj>(2)), 0x20000002);
  UniqueTable comms;
  EXPECT_EQ(comms.insert(std::make_unique<Obj>(1)), kCommWorld);
  EXPECT_EQ(comms.insert(std::make_unique<Obj>(2)), kCommSelf);
  EXPECT_EQ(comms.size(), 2u);
}

TEST(HandleTable, GetFindsLiveObjectsOnly) {
  UniqueTable t;
  const h::Handle a = t.insert(std::make_unique<Obj>(10));
  const h::Handle b = t.insert(std::make_unique<Obj>(20));
  ASSERT_NE(t.get(a), nullptr);
  EXPECT_EQ(t.get(a)->value, 10);
  EXPECT_EQ(t.get(b)->value, 20);
  EXPECT_TRUE(t.contains(b));
  // Out of range, wrong kind, null handle.
  EXPECT_EQ(t.get(h::encode(kind::comm, 2)), nullptr);
  EXPECT_EQ(t.get(h::encode(kind::comm, 1u << 20)), nullptr);
  EXPECT_EQ(t.get(h::encode(kind::group, 0)), nullptr);
  EXPECT_EQ(t.get(kCommNull), nullptr);
  // Freed.
  EXPECT_TRUE(t.erase(a));
  EXPECT_EQ(t.get(a), nullptr);
  EXPECT_FALSE(t.contains(a));
  EXPECT_FALSE(t.erase(a)); // twice
  EXPECT_EQ(t.get(b)->value, 20);
  // A const table gives the objects too.
  const UniqueTable &ct = t;
  EXPECT_EQ(ct.get(b)->value, 20);
}

TEST(HandleTable, EraseDestroysAndReusesTheLastFreedSlotFirst) {
  int destroyed = 0;
  UniqueTable t;
  std::vector<h::Handle> hs;
  for (int i = 0; i < 4; ++i)
    hs.push_back(t.insert(std::make_unique<Obj>(i, &destroyed)));
  EXPECT_TRUE(t.erase(hs[1]));
  EXPECT_TRUE(t.erase(hs[2]));
  EXPECT_EQ(destroyed, 2);
  EXPECT_EQ(t.size(), 2u);
  // The slots come back in their next generation: the freed handles stay invalid.
  const h::Handle again2 = t.insert(std::make_unique<Obj>(7));
  const h::Handle again1 = t.insert(std::make_unique<Obj>(8));
  EXPECT_EQ(again2, h::encode(kind::comm, 2, 1));
  EXPECT_EQ(again1, h::encode(kind::comm, 1, 1));
  EXPECT_EQ(h::decode(kind::comm, again1), 1u);
  EXPECT_EQ(t.insert(std::make_unique<Obj>(9)), h::encode(kind::comm, 4)); // then new slots
  EXPECT_EQ(t.get(again1)->value, 8);
  EXPECT_EQ(t.get(hs[1]), nullptr);
  EXPECT_EQ(t.get(hs[2]), nullptr);
  EXPECT_FALSE(t.erase(hs[1]));
  EXPECT_EQ(t.size(), 5u);
}

// A freed handle is invalid whatever reused its slot, for every generation short of a full turn
// of the generation count; the value in the slot is never reached through the stale handle.
TEST(HandleTable, StaleHandlesAreNotFoundAfterReuse) {
  h::HandleTable<int, kind::request> t;
  const h::Handle first = t.insert(1);
  std::vector<h::Handle> stale{first};
  t.erase(first);
  for (std::uint32_t g = 1; g <= h::kGenerationMask; ++g) {
    const h::Handle now = t.insert(static_cast<int>(g) + 1);
    EXPECT_EQ(h::decode(kind::request, now), 0u);
    EXPECT_EQ(h::generation(kind::request, now), g);
    EXPECT_TRUE(h::is_kind(kind::request, now));
    for (h::Handle old : stale) {
      EXPECT_EQ(t.get(old), nullptr) << std::hex << old << " found in generation " << g;
      EXPECT_FALSE(t.contains(old));
    }
    ASSERT_NE(t.get(now), nullptr);
    EXPECT_EQ(*t.get(now), static_cast<int>(g) + 1);
    stale.push_back(now);
    t.erase(now);
  }
  // A full turn later the slot's first handle names it again (the limit of 6 bits).
  EXPECT_EQ(t.insert(99), first);
  // Iteration gives the live handle, generation included.
  for (auto [hd, obj] : t) {
    EXPECT_EQ(hd, first);
    EXPECT_EQ(*obj, 99);
  }
}

TEST(HandleTable, SharedPointerOfAFreedHandleIsNull) {
  h::HandleTable<std::shared_ptr<Obj>, kind::group> t;
  const h::Handle a = t.insert(std::make_shared<Obj>(1));
  t.erase(a);
  const h::Handle b = t.insert(std::make_shared<Obj>(2));
  EXPECT_EQ(h::decode(kind::group, a), h::decode(kind::group, b));
  EXPECT_EQ(t.share(a), nullptr);
  EXPECT_EQ(t.share(b)->value, 2);
}

TEST(HandleTable, TakeHandsBackTheOwner) {
  h::HandleTable<std::unique_ptr<Obj>, kind::window> t;
  const h::Handle w = t.insert(std::make_unique<Obj>(5));
  std::unique_ptr<Obj> back = t.take(w);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->value, 5);
  EXPECT_EQ(t.get(w), nullptr);
  EXPECT_FALSE(t.take(w));
  EXPECT_TRUE(t.empty());
}

TEST(HandleTable, SharedPointersAndRawPointers) {
  h::HandleTable<std::shared_ptr<const Obj>, kind::group> groups;
  auto g = std::make_shared<const Obj>(3);
  const h::Handle gh = groups.insert(g);
  const Obj *p = groups.get(gh); // the object, not the shared_ptr
  EXPECT_EQ(p, g.get());
  std::shared_ptr<const Obj> held = groups.share(gh);
  EXPECT_EQ(held, g);
  EXPECT_EQ(g.use_count(), 3);
  groups.erase(gh);
  EXPECT_EQ(g.use_count(), 2); // the table's reference is gone, `held` keeps the object
  EXPECT_EQ(groups.share(gh), nullptr);

  Obj pooled(4);
  h::HandleTable<Obj *, kind::request> requests;
  const h::Handle r = requests.insert(&pooled);
  EXPECT_EQ(requests.get(r), &pooled);
  EXPECT_TRUE(requests.erase(r));
  EXPECT_EQ(requests.get(r), nullptr);
  EXPECT_EQ(pooled.value, 4); // a raw pointer's object is not the table's to destroy
}

struct Info {
  std::string text;
};

TEST(HandleTable, ValueSlots) {
  h::HandleTable<Info, kind::info> t;
  EXPECT_EQ(t.insert(Info{"env"}), kInfoEnv);
  const h::Handle a = t.insert(Info{"a"});
  EXPECT_EQ(a, 0x5c000002);
  Info *i = t.get(a);
  ASSERT_NE(i, nullptr);
  i->text = "changed";
  EXPECT_EQ(t.get(a)->text, "changed");
  EXPECT_EQ(t.get(0x5c000000), nullptr); // below first: not an info handle of this table
  EXPECT_TRUE(t.erase(a));
  EXPECT_EQ(t.get(a), nullptr);
  // An empty value is still a live object.
  const h::Handle e = t.insert(Info{});
  EXPECT_EQ(e, h::encode(kind::info, 1, 1)); // a's slot, next generation
  EXPECT_EQ(t.get(a), nullptr);
  ASSERT_NE(t.get(e), nullptr);
  EXPECT_TRUE(t.get(e)->text.empty());
}

TEST(HandleTable, IterationVisitsLiveObjectsInOrder) {
  UniqueTable t;
  std::vector<h::Handle> hs;
  for (int i = 0; i < 5; ++i)
    hs.push_back(t.insert(std::make_unique<Obj>(i)));
  t.erase(hs[0]);
  t.erase(hs[3]);
  std::vector<int> seen;
  for (auto [handle, obj] : t) {
    EXPECT_EQ(t.get(handle), obj);
    seen.push_back(obj->value);
  }
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 4}));

  // Erasing the entry in hand while iterating.
  for (auto [handle, obj] : t)
    if (obj->value % 2 == 0) t.erase(handle);
  seen.clear();
  for (auto e : t)
    seen.push_back(e.object->value);
  EXPECT_EQ(seen, (std::vector<int>{1}));

  UniqueTable empty;
  EXPECT_EQ(empty.begin(), empty.end());
}

TEST(HandleTable, ClearDropsEverythingAndRestartsNumbering) {
  int destroyed = 0;
  UniqueTable t;
  t.insert(std::make_unique<Obj>(1, &destroyed));
  const h::Handle b = t.insert(std::make_unique<Obj>(2, &destroyed));
  t.erase(b);
  t.clear();
  EXPECT_EQ(destroyed, 2);
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.insert(std::make_unique<Obj>(3)), kCommWorld);
}

TEST(HandleTable, ManyHandlesStayDistinctAndFindable) {
  h::HandleTable<int, kind::request> t;
  std::set<h::Handle> seen;
  std::vector<h::Handle> hs;
  for (int i = 0; i < 10000; ++i) {
    hs.push_back(t.insert(i));
    EXPECT_TRUE(seen.insert(hs.back()).second);
  }
  for (int i = 0; i < 10000; i += 3)
    t.erase(hs[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 10000; ++i) {
    const int *v = t.get(hs[static_cast<std::size_t>(i)]);
    if (i % 3 == 0)
      EXPECT_EQ(v, nullptr);
    else
      ASSERT_TRUE(v && *v == i);
  }
  EXPECT_EQ(t.size(), 10000u - 3334u);
}

} // namespace
