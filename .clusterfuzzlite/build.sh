#!/bin/bash -eu
# ClusterFuzzLite build step: scripts/build-fuzzers builds every fuzz target with the
# $CC/$CXX/$CFLAGS/$CXXFLAGS/$LIB_FUZZING_ENGINE given here and puts them, with their seed
# corpora and dictionaries, in $OUT.
"$SRC/neograde/scripts/build-fuzzers"
