// ampi::matching::Engine out-of-line members: the match/queue operations, bucket management
// (lookup, creation, sweeping of empty buckets) and the ordered walk used by for_each_posted.
// The data-structure design is described at the top of engine.hpp.
#include "matching/engine.hpp"

#include <algorithm>
#include <cassert>

namespace ampi::matching {

Engine::Bucket *Engine::find_bucket_slow(const Key &k) noexcept {
  auto it = buckets_.find(k);
  if (it == buckets_.end()) return nullptr;
  last_key_ = k;
  last_bucket_ = &it->second;
  return last_bucket_;
}

Engine::Bucket &Engine::bucket_for_slow(const Key &k) {
  if (Bucket *b = find_bucket_slow(k)) return *b;
  // Sweep before creating, so the new (still empty) bucket cannot be swept.
  if (buckets_.size() >= 4 * (posted_count_ + unexpected_count_) + 64) sweep_empty_buckets();
  last_key_ = k;
  last_bucket_ = &buckets_.try_emplace(k).first->second;
  return *last_bucket_;
}

void Engine::sweep_empty_buckets() noexcept {
  last_bucket_ = nullptr;
  std::erase_if(buckets_, [](const auto &kv) {
    return kv.second.posted.empty() && kv.second.unexpected.empty();
  });
}

void Engine::unlink(UnexpectedMessage &m) noexcept {
  m.arrival_hook_.unlink();
  m.bucket_hook_.unlink();
  --unexpected_count_;
}

PostedReceive *Engine::take_posted_any(const Envelope &env) noexcept {
  PostedReceive *best = nullptr;
  if (Bucket *b = find_bucket(key_of(env)); b && !b->posted.empty()) best = &b->posted.front();
  // The wildcard list is in posting order: stop at the first match or once it is later than the
  // exact candidate.
  for (PostedReceive &r : wildcard_posted_) {
    if (best && r.seq_ > best->seq_) break;
    if (matches(r.pattern, env)) {
      best = &r;
      break;
    }
  }
  if (best) {
    best->hook_.unlink();
    --posted_count_;
  }
  return best;
}

void Engine::add_unexpected(UnexpectedMessage &m) {
  assert(m.envelope.source >= 0 && m.envelope.tag >= 0);
  assert(!m.arrival_hook_.is_linked() && !m.bucket_hook_.is_linked());
  bucket_for(key_of(m.envelope)).unexpected.push_back(m); // may throw: nothing linked yet
  arrival_.push_back(m);
  ++unexpected_count_;
}

UnexpectedMessage *Engine::peek_unexpected(const Pattern &p) noexcept {
  if (is_exact(p)) {
    Bucket *b = find_bucket({p.context, p.source, p.tag});
    return b && !b->unexpected.empty() ? &b->unexpected.front() : nullptr;
  }
  for (UnexpectedMessage &m : arrival_)
    if (matches(p, m.envelope)) return &m;
  return nullptr;
}

UnexpectedMessage *Engine::take_unexpected(const Pattern &p) noexcept {
  UnexpectedMessage *m = peek_unexpected(p);
  if (m) unlink(*m);
  return m;
}

void Engine::add_posted(PostedReceive &r) {
  assert(!r.hook_.is_linked());
  if (is_exact(r.pattern))
    bucket_for({r.pattern.context, r.pattern.source, r.pattern.tag}).posted.push_back(r);
  else
    wildcard_posted_.push_back(r);
  r.seq_ = next_seq_++;
  ++posted_count_;
}

UnexpectedMessage *Engine::take_unexpected_or_post_slow(PostedReceive &r) {
  assert(!r.hook_.is_linked());
  const Pattern &p = r.pattern;
  if (!is_exact(p)) {
    if (UnexpectedMessage *m = take_unexpected(p)) return m;
    add_posted(r);
    return nullptr;
  }
  Bucket &b = bucket_for({p.context, p.source, p.tag}); // the message's bucket, or the receive's
  if (!b.unexpected.empty()) {
    UnexpectedMessage &m = b.unexpected.front();
    unlink(m);
    return &m;
  }
  b.posted.push_back(r);
  r.seq_ = next_seq_++;
  ++posted_count_;
  return nullptr;
}

bool Engine::remove_posted(PostedReceive &r) noexcept {
  if (!r.hook_.is_linked()) return false;
  r.hook_.unlink();
  --posted_count_;
  return true;
}

bool Engine::remove_unexpected(UnexpectedMessage &m) noexcept {
  if (!m.arrival_hook_.is_linked()) return false;
  unlink(m);
  return true;
}

std::vector<const PostedReceive *> Engine::posted_in_order() const {
  std::vector<const PostedReceive *> out;
  out.reserve(posted_count_);
  for (const auto &kv : buckets_)
    for (const PostedReceive &r : kv.second.posted)
      out.push_back(&r);
  for (const PostedReceive &r : wildcard_posted_)
    out.push_back(&r);
  std::sort(out.begin(), out.end(),
            [](const PostedReceive *a, const PostedReceive *b) { return a->seq_ < b->seq_; });
  return out;
}

} // namespace ampi::matching
