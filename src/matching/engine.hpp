// ampi::matching — the per-rank MPI message matching engine.
//
// This header owns the matching vocabulary (Envelope, Pattern, matches, the wildcard constants),
// the intrusive base classes the p2p layer derives its receive requests (PostedReceive) and
// unexpected messages (UnexpectedMessage) from, and the Engine that queues and matches them.
// engine.cpp holds Engine's out-of-line member functions.
//
// One Engine per receiving rank. Ranks are user-level threads scheduled cooperatively on one OS
// thread, so the engine takes no locks. It never allocates per message: entries are linked
// through hooks they carry; only a new (context, source, tag) hash bucket allocates.
//
// Data structures:
//  - buckets_: hash map (context, source, tag) -> Bucket. A bucket holds, in FIFO order, the
//    posted receives with exactly that pattern (no wildcard) and the unexpected messages with
//    exactly that envelope.
//  - wildcard_posted_: receives whose source and/or tag is a wildcard, in posting order.
//  - arrival_: every unexpected message, in arrival order (a message is linked both here and in
//    its bucket).
//  Every posted receive gets a sequence number from a monotonically increasing counter.
//
// Matching:
//  - arriving message: the front of its exact bucket competes with the first matching wildcard
//    receive; the lower sequence number (earliest posted) wins. With no wildcard receives posted
//    this is one hash lookup.
//  - new receive: exact pattern -> front of its bucket (one hash lookup); wildcard pattern ->
//    scan of the arrival list for the first match.
//  Both preserve MPI's non-overtaking rule: buckets and lists are FIFO.
//
// Bucket lifetime: empty buckets are kept (no allocation churn in ping-pong loops) until the map
// holds at least 4 * live entries + 1024 buckets; then, before a new bucket is created, all empty
// buckets are erased. Each sweep erases at least 3/4 of what it visits, so the cost is amortised
// O(1) per bucket created.
//
// Entries are owned by the caller. Hooks are Boost.Intrusive auto-unlink hooks: unlinking is O(1)
// without knowing the list, and destroying an Engine leaves the entries still queued merely
// unlinked. An entry must not be destroyed while queued (the engine's counts would go stale),
// and an entry may be queued in at most one engine at a time.
#pragma once

#include <boost/intrusive/list.hpp>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ampi::matching {

inline constexpr int kAnySource = -2; // MPI_ANY_SOURCE; receives only
inline constexpr int kAnyTag = -1;    // MPI_ANY_TAG; receives only

// A message's identity; source >= 0 and tag >= 0.
struct Envelope {
  std::uint32_t context;
  int source;
  int tag;
};

// A receive's selector; source may be kAnySource, tag may be kAnyTag.
struct Pattern {
  std::uint32_t context;
  int source;
  int tag;
};

[[nodiscard]] constexpr bool matches(const Pattern &p, const Envelope &e) noexcept {
  return p.context == e.context && (p.source == kAnySource || p.source == e.source) &&
         (p.tag == kAnyTag || p.tag == e.tag);
}

namespace detail {
using Hook =
    boost::intrusive::list_member_hook<boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;
} // namespace detail

// Base of the p2p layer's receive requests. Set `pattern` before add_posted.
class PostedReceive {
public:
  Pattern pattern{};

private:
  friend class Engine;
  detail::Hook hook_;     // in its exact bucket or in Engine::wildcard_posted_
  std::uint64_t seq_ = 0; // posting order, assigned by add_posted
};

// Base of the p2p layer's unexpected (not yet matched) messages. Set `envelope` before
// add_unexpected.
class UnexpectedMessage {
public:
  Envelope envelope{};

private:
  friend class Engine;
  detail::Hook arrival_hook_; // in Engine::arrival_
  detail::Hook bucket_hook_;  // in its exact bucket
};

class Engine {
public:
  Engine() = default;
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;
  ~Engine() = default; // the lists' destructors unlink (never destroy) entries still queued

  // An arriving message: removes and returns the earliest-posted receive matching `env`, or
  // nullptr. Inline while no wildcard receive is posted (the front of the message's bucket, if
  // any); else take_posted_any (engine.cpp).
  PostedReceive *take_posted(const Envelope &env) noexcept {
    if (!wildcard_posted_.empty()) [[unlikely]]
      return take_posted_any(env);
    Bucket *b = find_bucket(key_of(env));
    if (!b || b->posted.empty()) return nullptr;
    PostedReceive &r = b->posted.front();
    r.hook_.unlink();
    --posted_count_;
    return &r;
  }
  // Queues a message that found no receive (arrival order = call order).
  void add_unexpected(UnexpectedMessage &m);
  // A new receive: removes and returns the earliest-arrived message matching `p`, or nullptr.
  UnexpectedMessage *take_unexpected(const Pattern &p) noexcept;
  // Queues a receive that found no message (posting order = call order).
  void add_posted(PostedReceive &r);
  // take_unexpected(r.pattern), and add_posted(r) when that finds nothing, with one bucket lookup
  // instead of two for an exact pattern (every MPI_Irecv that arrives before its message).
  // Inline when it posts an exact receive into the last bucket used and finds no message there
  // (every blocking receive of a ping-pong that waits for its message); the rest in engine.cpp.
  UnexpectedMessage *take_unexpected_or_post(PostedReceive &r) {
    const Pattern &p = r.pattern;
    if (last_bucket_ && is_exact(p) && last_key_ == Key{p.context, p.source, p.tag} &&
        last_bucket_->unexpected.empty()) [[likely]] {
      last_bucket_->posted.push_back(r);
      r.seq_ = next_seq_++;
      ++posted_count_;
      return nullptr;
    }
    return take_unexpected_or_post_slow(r);
  }
  // Probe: the earliest-arrived message matching `p`, left in place, or nullptr.
  UnexpectedMessage *peek_unexpected(const Pattern &p) noexcept;
  // Cancel: unlinks a posted receive still queued; false if it is not queued.
  bool remove_posted(PostedReceive &r) noexcept;
  // Unlinks a specific unexpected message (matched probe); false if it is not queued.
  bool remove_unexpected(UnexpectedMessage &m) noexcept;

  std::size_t posted_count() const noexcept { return posted_count_; }
  std::size_t unexpected_count() const noexcept { return unexpected_count_; }
  // Hash buckets currently allocated, empty ones included (diagnostics and tests).
  std::size_t bucket_count() const noexcept { return buckets_.size(); }

  // Visit queued entries in posting / arrival order as `const T&`. F must not modify the engine.
  // for_each_posted gathers and sorts (diagnostics only); for_each_unexpected walks a list.
  template <class F> void for_each_posted(F &&f) const {
    for (const PostedReceive *r : posted_in_order())
      f(*r);
  }
  template <class F> void for_each_unexpected(F &&f) const {
    for (const UnexpectedMessage &m : arrival_)
      f(m);
  }

private:
  struct Key {
    std::uint32_t context;
    int source;
    int tag;
    friend bool operator==(const Key &, const Key &) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key &k) const noexcept {
      std::uint64_t h = ((std::uint64_t{k.context} << 32) | static_cast<std::uint32_t>(k.source)) *
                        0x9E3779B97F4A7C15u;
      h ^= (h >> 32) ^ static_cast<std::uint32_t>(k.tag);
      h *= 0xD6E8FEB86659FD93u;
      return static_cast<std::size_t>(h ^ (h >> 32));
    }
  };

  template <class T, detail::Hook T::*H>
  using List = boost::intrusive::list<T, boost::intrusive::member_hook<T, detail::Hook, H>,
                                      boost::intrusive::constant_time_size<false>>;
  using PostedList = List<PostedReceive, &PostedReceive::hook_>;
  using ArrivalList = List<UnexpectedMessage, &UnexpectedMessage::arrival_hook_>;
  using BucketMessageList = List<UnexpectedMessage, &UnexpectedMessage::bucket_hook_>;

  struct Bucket {
    PostedList posted;            // exact-pattern receives, posting order
    BucketMessageList unexpected; // messages, arrival order
  };

  static Key key_of(const Envelope &e) noexcept { return {e.context, e.source, e.tag}; }
  static bool is_exact(const Pattern &p) noexcept {
    return p.source != kAnySource && p.tag != kAnyTag;
  }

  // Repeated traffic (ping-pong, halo exchanges, a window of sends) keeps using one key: the
  // last bucket is checked inline, the hash lookup is a call (engine.cpp).
  Bucket *find_bucket(const Key &k) noexcept {
    if (last_bucket_ && last_key_ == k) [[likely]]
      return last_bucket_;
    return find_bucket_slow(k);
  }
  Bucket &bucket_for(const Key &k) { // finds or creates; may sweep empty buckets first
    if (last_bucket_ && last_key_ == k) [[likely]]
      return *last_bucket_;
    return bucket_for_slow(k);
  }
  Bucket *find_bucket_slow(const Key &k) noexcept;
  PostedReceive *take_posted_any(const Envelope &env) noexcept;
  UnexpectedMessage *take_unexpected_or_post_slow(PostedReceive &r);
  Bucket &bucket_for_slow(const Key &k);
  void sweep_empty_buckets() noexcept;
  void unlink(UnexpectedMessage &m) noexcept;
  std::vector<const PostedReceive *> posted_in_order() const;

  std::unordered_map<Key, Bucket, KeyHash> buckets_; // nodes never move: bucket pointers stay valid
  Key last_key_{}; // the most recently used bucket (nullptr after a sweep)
  Bucket *last_bucket_ = nullptr;
  PostedList wildcard_posted_;
  ArrivalList arrival_;
  std::uint64_t next_seq_ = 0;
  std::size_t posted_count_ = 0;
  std::size_t unexpected_count_ = 0;
};

} // namespace ampi::matching
