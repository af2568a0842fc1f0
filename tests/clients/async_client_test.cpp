// The asynchronous client: many connections on one event loop, with the behaviour of send().

#include <neograde/clients/http.hpp>
#include <neograde/clients/provider_client.hpp>

#include <neograde/emulator/emulator.hpp>

#include "../support/http_options.hpp"
#include "../support/scripted_server.hpp"
#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

using namespace neograde;
using test::fast_options;
using namespace std::chrono_literals;
using test::scripted_server;

namespace {

// An emulator of Lambda answering at once, without rate limits.
class AsyncEmulator : public ::testing::Test {
 protected:
  void SetUp() override {
    emulator::model_options m;
    m.api_keys = {"k1"};
    m.time_scale = 0;
    m.rate_limit = false;
    emu_ = std::make_unique<emulator::emulator>(test::spec("lambda"), m);
    emu_->start();
  }
  [[nodiscard]] http::request list_types() const {
    return {"GET", emu_->base_url() + "/instance-types", {{"Authorization", "Bearer k1"}}, {}};
  }
  std::unique_ptr<emulator::emulator> emu_;
};

// What one asynchronous send on a fresh loop answers.
http::send_result send_async(const http::client_options& o, const http::request& req, std::deque<exchange>* transcript = nullptr) {
  http::event_loop loop;
  http::client c(loop, o);
  std::optional<http::send_result> out;
  c.async_send(req, [&](http::send_result r) { out = std::move(r); });
  loop.run();
  if (transcript != nullptr) *transcript = c.transcript();
  return out.value();
}

}  // namespace

TEST_F(AsyncEmulator, ManyConnectionsOnOneLoopEachCompleteTheirRequests) {
  http::client sync(fast_options());
  auto expected = sync.send(list_types());
  ASSERT_TRUE(expected.has_value()) << expected.error().message();
  ASSERT_EQ(expected->status, 200);

  constexpr int connections = 32;
  constexpr int requests_each = 5;
  http::event_loop loop;
  std::vector<std::unique_ptr<http::client>> clients;
  std::vector<int> done(connections, 0);
  int wrong = 0;
  std::vector<std::function<void()>> next(connections);
  for (int i = 0; i < connections; ++i) {
    clients.push_back(std::make_unique<http::client>(loop, fast_options()));
    next[i] = [&, i] {
      clients[i]->async_send(list_types(), [&, i](http::send_result r) {
        if (!r || r->status != 200 || r->body != expected->body) ++wrong;
        if (++done[i] < requests_each) next[i]();
      });
    };
  }
  for (auto& start : next) start();
  // Every client has its request in flight before any answer is read.
  for (const auto& c : clients) EXPECT_TRUE(c->busy());
  loop.run();
  EXPECT_EQ(wrong, 0);
  for (int i = 0; i < connections; ++i) {
    EXPECT_EQ(done[i], requests_each) << "connection " << i;
    EXPECT_FALSE(clients[i]->busy());
    EXPECT_EQ(clients[i]->transcript().size(), static_cast<std::size_t>(requests_each));
  }
}

TEST_F(AsyncEmulator, AnswersAndKeepsWhatTheSynchronousSendDoes) {
  redactor redact;
  redact.add_secret("k1");
  http::client sync(fast_options(), redact);
  auto expected = sync.send(list_types());
  ASSERT_TRUE(expected.has_value());

  http::event_loop loop;
  http::client c(loop, fast_options(), redact);
  std::optional<http::send_result> got;
  c.async_send(list_types(), [&](http::send_result r) { got = std::move(r); });
  loop.run();
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->status, expected->status);
  EXPECT_EQ((*got)->body, expected->body);
  EXPECT_EQ((*got)->header("Content-Type"), expected->header("Content-Type"));
  auto a = sync.last_exchange();
  auto b = c.last_exchange();
  EXPECT_EQ(b.request_headers, a.request_headers);
  EXPECT_EQ(b.response_body, a.response_body);
  EXPECT_EQ(b.status, a.status);
  EXPECT_EQ(b.url, a.url);
  EXPECT_EQ(b.request_headers.size(), a.request_headers.size());
  for (const auto& [name, value] : b.request_headers) EXPECT_EQ(value.find("k1"), std::string::npos) << name << " is not redacted";
}

TEST_F(AsyncEmulator, KeepsNoExchangeWhenAskedNotTo) {
  auto o = fast_options();
  o.keep_exchanges = false;
  std::deque<exchange> transcript;
  auto r = send_async(o, list_types(), &transcript);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(transcript.empty());
}

TEST_F(AsyncEmulator, SendOnASharedLoopRunsItAndRefusesInsideItsHandlers) {
  http::event_loop loop;
  http::client c(loop, fast_options());
  auto first = c.send(list_types());
  ASSERT_TRUE(first.has_value()) << first.error().message();
  EXPECT_EQ(first->status, 200);

  bool refused = false;
  bool busy_refused = false;
  c.async_send(list_types(), [&](http::send_result) {
    try {
      (void)c.send(list_types());
    } catch (const std::logic_error&) {
      refused = true;
    }
  });
  try {
    c.async_send(list_types(), [](http::send_result) {});
  } catch (const std::logic_error&) {
    busy_refused = true;
  }
  loop.run();
  EXPECT_TRUE(refused);
  EXPECT_TRUE(busy_refused);
}

TEST_F(AsyncEmulator, TypedCallsGoThroughTheLoopWithTheSynchronousResults) {
  const auto& spec = test::spec("lambda");
  provider_client sync(spec, emu_->base_url(), "k1", fast_options());
  auto expected = sync.call(operation_id::list_offers);
  ASSERT_TRUE(expected.success) << expected.describe();

  http::event_loop loop;
  constexpr int clients_n = 8;
  std::vector<std::unique_ptr<provider_client>> clients;
  std::vector<call_result> got(clients_n);
  int observed = 0;
  for (int i = 0; i < clients_n; ++i) {
    clients.push_back(std::make_unique<provider_client>(loop, spec, emu_->base_url(), "k1", fast_options()));
    clients.back()->observer = [&](operation_id, const call_result&) { ++observed; };
    clients.back()->async_call(operation_id::list_offers, [&, i](call_result r) { got[i] = std::move(r); });
  }
  loop.run();
  EXPECT_EQ(observed, clients_n);
  for (const auto& r : got) {
    EXPECT_TRUE(r.success) << r.describe();
    EXPECT_EQ(r.json, expected.json);
    EXPECT_EQ(r.evidence.request_headers, expected.evidence.request_headers);
    EXPECT_TRUE(clients.front()->target_is_emulator());
  }
}

TEST_F(AsyncEmulator, AnUndeclaredOperationIsAnsweredOnTheLoop) {
  auto spec = test::spec("lambda");
  spec.operations.erase(operation_id::restart);
  http::event_loop loop;
  provider_client c(loop, spec, emu_->base_url(), "k1", fast_options());
  std::optional<call_result> got;
  c.async_call(operation_id::restart, [&](call_result r) { got = std::move(r); });
  EXPECT_FALSE(got.has_value());  // not inside async_call
  loop.run();
  ASSERT_TRUE(got.has_value());
  ASSERT_TRUE(got->transport.has_value());
  EXPECT_EQ(got->transport->code, http::client_errc::bad_url);
}

TEST(AsyncClient, ReusesAKeptAliveConnection) {
  scripted_server s({{scripted_server::response(200, "{\"n\":1}"), false}, {scripted_server::response(200, "{\"n\":2}"), false}});
  http::event_loop loop;
  http::client c(loop, fast_options());
  std::vector<std::string> bodies;
  c.async_send({"GET", s.url("/a"), {}, {}}, [&](http::send_result r) {
    bodies.push_back(r ? r->body : r.error().message());
    c.async_send({"GET", s.url("/b"), {}, {}}, [&](http::send_result r2) { bodies.push_back(r2 ? r2->body : r2.error().message()); });
  });
  loop.run();
  EXPECT_EQ(bodies, (std::vector<std::string>{"{\"n\":1}", "{\"n\":2}"}));
  EXPECT_EQ(s.connections(), 1);
}

TEST(AsyncClient, ErrorsMapAsTheSynchronousOnes) {
  std::string refused_url;
  {
    scripted_server gone({});
    refused_url = gone.url();
  }
  auto refused = send_async(fast_options(), {"GET", refused_url, {}, {}});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, http::client_errc::connect_failed);

  scripted_server silent({{"", false, true}});
  auto o = fast_options();
  o.read_timeout = 200ms;
  auto timed_out = send_async(o, {"GET", silent.url(), {}, {}});
  ASSERT_FALSE(timed_out.has_value());
  EXPECT_EQ(timed_out.error().code, http::client_errc::timeout);

  scripted_server big({{scripted_server::response(200, std::string(5000, 'x'))}, {scripted_server::response(200, std::string(5000, 'x'))}});
  auto capped = fast_options();
  capped.max_body_bytes = 1000;
  auto too_large = send_async(capped, {"GET", big.url(), {}, {}});
  ASSERT_FALSE(too_large.has_value());
  EXPECT_EQ(too_large.error().code, http::client_errc::body_too_large);
  http::client sync(capped);
  auto sync_too_large = sync.send({"GET", big.url(), {}, {}});
  ASSERT_FALSE(sync_too_large.has_value());
  EXPECT_EQ(sync_too_large.error().message(), too_large.error().message());

  auto bad = send_async(fast_options(), {"GET", "ftp://example.com/", {}, {}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, http::client_errc::unsupported_scheme);
}

TEST(AsyncClient, RetriesA429AfterRetryAfterOnTheLoopsTimer) {
  scripted_server s(
      {{scripted_server::response(429, "{}", "Retry-After: 0\r\n"), true}, {scripted_server::response(200, "{\"ok\":1}"), true}});
  auto o = fast_options();
  o.sleep = nullptr;  // the wait is a timer on the loop
  int attempts = 0;
  o.before_attempt = [&] { ++attempts; };
  std::deque<exchange> transcript;
  auto r = send_async(o, {"GET", s.url(), {}, {}}, &transcript);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "{\"ok\":1}");
  EXPECT_EQ(attempts, 2);
  ASSERT_EQ(transcript.size(), 2u);
  EXPECT_EQ(transcript[0].status, 429);
  EXPECT_EQ(transcript[1].status, 200);
}

TEST(AsyncClient, AnInjectedWaitReplacesTheTimer) {
  scripted_server s({{scripted_server::response(503, "{}", "Retry-After: 7\r\n"), true}, {scripted_server::response(200, "{}"), true}});
  auto o = fast_options();
  std::vector<std::chrono::milliseconds> waits;
  o.sleep = [&](std::chrono::milliseconds w) { waits.push_back(w); };
  auto r = send_async(o, {"GET", s.url(), {}, {}});
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(waits, (std::vector<std::chrono::milliseconds>{7s}));
}

TEST(AsyncClient, AHooksExceptionComesOutOfTheLoop) {
  auto o = fast_options();
  o.before_attempt = [] { throw std::runtime_error("stop"); };
  http::event_loop loop;
  http::client c(loop, o);
  bool called = false;
  c.async_send({"GET", "http://127.0.0.1:9/", {}, {}}, [&](http::send_result) { called = true; });
  EXPECT_THROW(loop.run(), std::runtime_error);
  EXPECT_FALSE(called);
  // The synchronous facade throws it from send().
  http::client sync(o);
  EXPECT_THROW((void)sync.send({"GET", "http://127.0.0.1:9/", {}, {}}), std::runtime_error);
}

TEST(EventLoop, RunsTimersInOrderAndStops) {
  http::event_loop loop;
  std::vector<int> order;
  loop.after(20ms, [&] { order.push_back(2); });
  loop.after(0ms, [&] { order.push_back(1); });
  loop.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  loop.after(0ms, [&] {
    order.push_back(3);
    loop.stop();
  });
  loop.after(0ms, [&] { order.push_back(4); });
  loop.run();  // stops after the first
  loop.run();  // runs what was left
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4}));
}
