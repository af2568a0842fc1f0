#include <neograde/clients/pages.hpp>

#include <gtest/gtest.h>

using namespace neograde;

namespace {

call_result answered(nlohmann::json body) {
  call_result r;
  r.response = http::response{200, {}, body.dump()};
  r.json = std::move(body);
  r.success = true;
  return r;
}

pagination_spec totalled() {
  pagination_spec pg;
  pg.style = "page";
  pg.page_param = "page";
  pg.total_pointer = "/totalCount";
  pg.metadata_source = "the provider's catalogue document";
  return pg;
}

page_read page(int total, std::vector<std::string> rows) { return page_read{answered({{"totalCount", total}}), std::move(rows)}; }

typed_result<std::vector<nlohmann::json>> ended() {
  typed_result<std::vector<nlohmann::json>> w;
  w.value = std::vector<nlohmann::json>{};
  return w;
}

}  // namespace

// One decision for the conformance check pagination.offers.walk_ends and the fuzzer's page walk:
// a walk that ends with a true total has no fault; a total above the rows (a walk to it never
// ends), a page that answers the one before again, a walk the client had to cut short, and pages
// that overlap each have one, with the answers that show it.
TEST(OffersWalkFault, NoneForAWalkThatEndsWithATrueTotal) {
  EXPECT_FALSE(offers_walk_fault(ended(), {page(2, {"a"}), page(2, {"b"}), page(2, {})}, totalled()));
  EXPECT_EQ(last_listing({page(2, {"a"}), page(2, {"b"}), page(2, {})}), 1u);
  EXPECT_EQ(declared_metadata(totalled()), "the total");
}

TEST(OffersWalkFault, ATotalThatCountsEveryRowTwice) {
  const auto f = offers_walk_fault(ended(), {page(4, {"a"}), page(4, {"b"}), page(4, {})}, totalled());
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("the page states a total of 4 (/totalCount); the walk found 2 distinct offer rows: a client that walks until "
                            "it has the total never ends"),
            std::string::npos)
      << f->message;
  EXPECT_EQ(f->evidence.size(), 1u);
}

TEST(OffersWalkFault, APageThatAnswersTheOneBeforeAgain) {
  typed_result<std::vector<nlohmann::json>> cut;
  cut.problem = "the provider served the same page twice";
  const auto f = offers_walk_fault(cut, {page(2, {"a"}), page(2, {"a"})}, totalled());
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("page 2 answers the 1 row(s) of page 1 again: the page parameter is ignored"), std::string::npos) << f->message;
  EXPECT_EQ(f->evidence.size(), 2u);
}

TEST(OffersWalkFault, AWalkCutShortByTheClientsBound) {
  typed_result<std::vector<nlohmann::json>> cut;
  cut.problem = "the walk did not end within 1000 pages";
  const auto f = offers_walk_fault(cut, {page(2, {"a"}), page(2, {"b"})}, totalled());
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("did not end within 1000 pages"), std::string::npos) << f->message;
  // A walk that failed for its request (an error answer) is the caller's to judge.
  EXPECT_FALSE(offers_walk_fault(typed_result<std::vector<nlohmann::json>>{}, {}, totalled()));
}

TEST(OffersWalkFault, PagesThatOverlap) {
  const auto f = offers_walk_fault(ended(), {page(2, {"a"}), page(2, {"b"}), page(2, {"a"}), page(2, {})}, totalled());
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("page 3 lists a row page 1 listed already"), std::string::npos) << f->message;
}
