// batch_find.cpp: a batch whose creation a run could not confirm (its create call got no
// clear answer, or the run was killed before recording the answer) is looked for at the
// provider before it is sent again (batch_run.hpp). A batch found there is taken only on
// proof that it is this one, never by size and time: a wrong guess pays for the same
// requests twice and stores one batch's answers under another's requests.
//  - OpenAI: a batch carries the metadata it was created with, our batch id. More than one
//    with it (a create the server carried out twice) is one batch and duplicates to cancel.
//  - Anthropic: a batch carries no metadata. Its results do: every custom id names our
//    batch id (batch_custom_id). A batch that might be ours is waited for until it ends and
//    its results say whose it is; until then, this one is not sent again.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "runtime/scheduler/batch_run.hpp"

namespace mirac {
namespace {

// Batches created this long before the store recorded ours (clocks differ) and after are
// the ones looked through.
constexpr double kClockSlackS = 300;
constexpr int kMaxListPages = 20;

}  // namespace

BatchRun::Open* BatchRun::open_batch(const std::string& local_id) {
  for (auto& o : open_)
    if (o->record.local_id == local_id) return o.get();
  return nullptr;
}

void BatchRun::find_or_send(Open& o) {
  if (stopped_.count(o.record.provider)) return;
  std::vector<RemoteBatch> listed;
  // Not knowing whether it exists, it is not sent again: looked for at the next poll.
  if (!list_since(o, listed)) return;
  if (o.record.protocol == WireProtocol::openai_chat) adopt_by_metadata(o, listed);
  else adopt_by_results(o, listed);
}

bool BatchRun::list_since(Open& o, std::vector<RemoteBatch>& listed) {
  const BatchRecord& b = o.record;
  const BatchEndpoint at = endpoint_of(b);
  std::string after;
  for (int page = 0; page < kMaxListPages; ++page) {
    bool ok = false;
    HttpResponse r = call(batch_list_request(at, after), ok);
    if (!ok) {
      Interpretation in = interpret(b.protocol, r, c_.ctx.clock.wall());
      if (classify_batch_call(r, in) == CallResult::stopped)
        stop_provider(b.provider, in.cause + ": " + c_.redact(in.message));
      o.next_poll = c_.ctx.clock.now() + settings(b.provider).poll_s;
      return false;
    }
    double oldest = std::numeric_limits<double>::infinity();
    for (auto& remote : parse_batch_list(b.protocol, b.base_url, r.body, after)) {
      oldest = std::min(oldest, remote.created_at);
      if (remote.created_at >= b.created_at - kClockSlackS) listed.push_back(std::move(remote));
    }
    if (after.empty() || oldest < b.created_at - kClockSlackS) break;
  }
  // Oldest first: of two that might be ours, the earlier was made first.
  std::stable_sort(listed.begin(), listed.end(),
                   [](const RemoteBatch& x, const RemoteBatch& y) { return x.created_at < y.created_at; });
  return true;
}

void BatchRun::adopt_by_metadata(Open& o, const std::vector<RemoteBatch>& listed) {
  const BatchRecord& b = o.record;
  std::vector<const RemoteBatch*> mine;
  for (const auto& remote : listed)
    if (remote.metadata_id == b.local_id) mine.push_back(&remote);
  if (mine.empty()) return send(o);
  adopt(o, *mine.front(), "by the id it carries as metadata");
  // The same create carried out more than once: the others would run the same requests
  // again. They are cancelled, and their answers are never stored.
  for (std::size_t i = 1; i < mine.size(); ++i) {
    const RemoteBatch& extra = *mine[i];
    bool ok = false;
    if (!extra.ended) call(batch_cancel_request(endpoint_of(b), extra.id), ok);
    std::string m = fmt::format("batch {}: the provider made it more than once; {} is a duplicate, {}", b.local_id,
                                extra.id, extra.ended ? "already ended (its answers are not stored)"
                                          : ok    ? "cancelled (its answers are not stored)"
                                                  : "could not be cancelled: cancel it in the provider's console");
    c_.summary.messages.push_back(m);
    c_.log(m);
  }
}

void BatchRun::adopt_by_results(Open& o, const std::vector<RemoteBatch>& listed) {
  const BatchRecord& b = o.record;
  const auto own_requests = c_.batches.requests(b.local_id);
  const bool older_ids = own_requests.empty() || batch_of_custom_id(own_requests.front().custom_id).empty();
  std::vector<const RemoteBatch*> running;
  for (const auto& remote : listed) {
    if (remote.total != b.requests || not_ours_.count(remote.id) || c_.batches.knows_remote_id(remote.id)) continue;
    if (!remote.ended) {
      running.push_back(&remote);
      continue;
    }
    std::string owner;
    if (!owner_of(b, remote, owner)) {
      running.push_back(&remote);  // its results could not be read: not known yet
      continue;
    }
    if (owner == b.local_id) return adopt(o, remote, "by its results, which name this batch's requests");
    if (owner.empty() && older_ids) {
      // Recorded by an older mirac, whose ids name no batch: nothing can tell whose it is.
      return stop_provider(b.provider,
                           fmt::format("batch {} was recorded by an older mirac and the provider holds {} of its size, "
                                       "whose owner cannot be proved; see docs/providers.md, \"Batch APIs\"",
                                       b.local_id, remote.id));
    }
    Open* other = owner.empty() ? nullptr : open_batch(owner);
    if (other && !other->collected && other->record.state != batch_state::submitted)
      adopt(*other, remote, "by its results, found while looking for " + b.local_id);
    else
      not_ours_.insert(remote.id);
  }
  if (running.empty()) return send(o);
  o.next_poll = c_.ctx.clock.now() + settings(b.provider).poll_s;
  for (const RemoteBatch* remote : running)
    if (waits_said_.insert(b.local_id + " " + remote->id).second)
      c_.log(fmt::format("batch {} ({}): its creation was not confirmed, and the provider runs {} of the same size made "
                         "since; Anthropic's batches carry no id of ours, so {} is not sent again until {} ends and its "
                         "results show whose it is",
                         b.local_id, b.model, remote->id, b.local_id, remote->id));
}

bool BatchRun::owner_of(const BatchRecord& b, const RemoteBatch& remote, std::string& owner) {
  owner.clear();
  bool first = true;
  for (const auto& url : remote.result_urls) {
    bool ok = false;
    HttpResponse r = call(batch_download_request(endpoint_of(b), url), ok);
    if (!ok) return false;
    std::size_t bad = 0;
    for (const auto& line : parse_batch_results(b.protocol, r.body, bad)) {
      const std::string named = batch_of_custom_id(line.custom_id);
      if (first) owner = named, first = false;
      if (named != owner || named.empty()) {
        owner.clear();  // lines naming different batches, or none: no batch of ours made it
        return true;
      }
    }
  }
  return true;
}

void BatchRun::adopt(Open& o, const RemoteBatch& remote, const std::string& how) {
  BatchRecord& b = o.record;
  o.remote = remote;
  b.remote_id = remote.id;
  b.remote_status = remote.status;
  b.state = batch_state::submitted;
  b.updated_at = c_.ctx.clock.wall();
  std::string error;
  if (!c_.batches.update(b, error)) return void(c_.summary.fatal_error = "cannot write to the store: " + error);
  c_.log(fmt::format("batch {} found at the provider as {} ({}): created before, not sent again", b.local_id,
                     b.remote_id, how));
  o.next_poll = c_.ctx.clock.now();
}

void BatchRun::disown(Open& o, std::size_t foreign_lines) {
  BatchRecord& b = o.record;
  const std::string remote = b.remote_id;
  not_ours_.insert(remote);
  b.remote_id.clear();
  b.remote_status.clear();
  b.state = batch_state::preparing;
  b.updated_at = c_.ctx.clock.wall();
  o.remote = RemoteBatch{};
  std::string error;
  if (!c_.batches.update(b, error)) return void(c_.summary.fatal_error = "cannot write to the store: " + error);
  stop_provider(b.provider, fmt::format("the results of {} name {} request(s) that batch {} never held, so they are "
                                        "another batch's; nothing was stored from them, and {} is looked for again",
                                        remote, foreign_lines, b.local_id, b.local_id));
}

}  // namespace mirac
