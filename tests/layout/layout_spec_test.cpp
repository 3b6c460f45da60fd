#include "ladle/layout/layout_spec.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace ladle::layout {
namespace {

constexpr const char* kSeedSpec =
    "tp=4,pp=4,cp=1,ep=32,etp=1,dp=8,sp=on,vpp=1,first=18,last=20,recompute=selective,offload=1.0,"
    "overlap=on,precision_aware=on,max_tokens=8192,rows_per_mb=1,dispatcher=alltoall";

TEST(LayoutSpec, ParsesTheIssueExample) {
  const Layout l = parse_layout_spec(kSeedSpec);
  EXPECT_EQ(l.tp, 4);
  EXPECT_EQ(l.pp, 4);
  EXPECT_EQ(l.ep, 32);
  EXPECT_EQ(l.dp, 8);
  EXPECT_TRUE(l.sp);
  EXPECT_EQ(l.first, 18);
  EXPECT_EQ(l.last, 20);
  EXPECT_EQ(l.recompute, RecomputeGranularity::selective);
  EXPECT_DOUBLE_EQ(l.offload, 1.0);
  EXPECT_TRUE(l.overlap);
  EXPECT_TRUE(l.precision_aware);
  EXPECT_EQ(l.max_tokens, 8192);
  EXPECT_EQ(l.dispatcher, MoeDispatcher::alltoall);
  EXPECT_EQ(l.gpus(), 128);
  EXPECT_EQ(l.edp(), 1);
}

TEST(LayoutSpec, ParsesFullRecomputeWithMethodAndLayers) {
  const Layout l = parse_layout_spec("recompute=full:block:3");
  EXPECT_EQ(l.recompute, RecomputeGranularity::full);
  EXPECT_EQ(l.recompute_method, RecomputeMethod::block);
  EXPECT_EQ(l.recompute_layers, 3);
  const Layout u = parse_layout_spec("recompute=full");
  EXPECT_EQ(u.recompute_method, RecomputeMethod::uniform);
  EXPECT_EQ(u.recompute_layers, 1);
}

TEST(LayoutSpec, FormatThenParseRoundTrips) {
  const Layout seed = parse_layout_spec(kSeedSpec);
  EXPECT_EQ(parse_layout_spec(format_layout_spec(seed)), seed);
  const Layout other = parse_layout_spec("tp=2,ep=8,recompute=full:uniform:2,offload=0.25,moments=bf16,"
                                         "precision_aware=on,dispatcher=flex,rows_per_mb=4");
  EXPECT_EQ(parse_layout_spec(format_layout_spec(other)), other);
  EXPECT_EQ(format_layout_spec(seed), kSeedSpec);
}

TEST(LayoutSpec, RealsKeepEveryDigitTheyWereGiven) {
  // The layout-spec fuzz harness's finding: a capacity factor of .16777777 was written "0.168",
  // so the spec ladle wrote read back to another layout.
  const Layout l = parse_layout_spec("capacity=.16777777,offload=0.3333333333333333");
  const std::string spec = format_layout_spec(l);
  EXPECT_NE(spec.find("capacity=0.16777777"), std::string::npos) << spec;
  EXPECT_NE(spec.find("offload=0.3333333333333333"), std::string::npos) << spec;
  EXPECT_EQ(parse_layout_spec(spec), l);
  // Whole numbers stay reals, and the spec's usual values read as before.
  EXPECT_NE(format_layout_spec(parse_layout_spec("offload=1")).find("offload=1.0"), std::string::npos);
  EXPECT_NE(format_layout_spec(parse_layout_spec("offload=0.25")).find("offload=0.25,"), std::string::npos);
}

TEST(LayoutSpec, LabelsLikeTheRecipes) {
  EXPECT_EQ(layout_label(parse_layout_spec(kSeedSpec)), "TP4 PP4 EP32 DP8");
  EXPECT_EQ(layout_label(parse_layout_spec("tp=2,pp=2,vpp=2,cp=2,ep=4,etp=2,dp=2")), "TP2 PP2 VPP2 CP2 EP4 ETP2 DP2");
}

TEST(LayoutSpec, RejectsUnknownKeyWithSuggestion) {
  EXPECT_LADLE_ERROR(parse_layout_spec("tpp=4"), usage, "unknown key 'tpp' (did you mean 'tp'?)");
}

TEST(LayoutSpec, RejectsOutOfRangeAndMalformedValues) {
  EXPECT_LADLE_ERROR(parse_layout_spec("tp=0"), usage, "layout.tp: 0 is out of range 1..65536");
  EXPECT_LADLE_ERROR(parse_layout_spec("tp=four"), usage, "layout.tp: expected an integer, got 'four'");
  EXPECT_LADLE_ERROR(parse_layout_spec("offload=1.5"), usage, "layout.offload: 1.5 is out of range 0..1");
  EXPECT_LADLE_ERROR(parse_layout_spec("sp=maybe"), usage, "layout.sp: expected on or off, got 'maybe'");
  EXPECT_LADLE_ERROR(parse_layout_spec("dispatcher=deepep"), usage, "layout.dispatcher: unknown dispatcher 'deepep'");
  EXPECT_LADLE_ERROR(parse_layout_spec("recompute=selective:uniform"), usage, "only full recompute takes");
  EXPECT_LADLE_ERROR(parse_layout_spec("tp=2,tp=4"), usage, "layout.tp: given twice");
  EXPECT_LADLE_ERROR(parse_layout_spec("tp"), usage, "expected key=value, got 'tp'");
  EXPECT_LADLE_ERROR(parse_layout_spec(""), usage, "layout spec is empty");
}

TEST(LayoutSpec, KeepsTheKeysASpecNames) {
  const PartialLayout spec = parse_partial_layout_spec("tp=4, pp=4,ep=16,sp=off");
  EXPECT_EQ(spec.given, (std::vector<std::string>{"tp", "pp", "ep", "sp"}));
  EXPECT_TRUE(spec.names("sp"));
  EXPECT_FALSE(spec.names("precision_aware"));
  EXPECT_EQ(spec.layout, parse_layout_spec("tp=4,pp=4,ep=16,sp=off"));
  // A label names its sizes and leaves the rest at Layout's defaults here; parse_layout_spec
  // gives it plan's choices.
  const PartialLayout label = parse_partial_layout_spec("TP4 PP4 EP16 DP4");
  EXPECT_EQ(label.given, (std::vector<std::string>{"tp", "pp", "ep", "dp"}));
  EXPECT_FALSE(label.layout.sp);
  EXPECT_FALSE(label.layout.precision_aware);
  EXPECT_TRUE(parse_layout_spec("TP4 PP4 EP16 DP4").sp);
  EXPECT_TRUE(parse_layout_spec("TP4 PP4 EP16 DP4").precision_aware);
  EXPECT_LADLE_ERROR(parse_partial_layout_spec("tp=2,tp=4"), usage, "given twice");
}

}  // namespace
}  // namespace ladle::layout
