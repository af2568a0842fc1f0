#pragma once
// How neograde's emulator identifies itself, so that results against it are labelled
// "emulated" and never read as a rating of the real provider.

namespace neograde {

// Added by the emulator to every response, naming the provider it plays. A real provider never
// sends it.
inline constexpr const char* emulator_header_name = "X-Neograde-Emulator";
// The emulator's time scale (delays are multiplied by it), so checks scale their patience.
inline constexpr const char* time_scale_header_name = "X-Neograde-Time-Scale";
// How long the emulator means an answer to have taken, in milliseconds (its deliberate delays,
// slow_responses'): the latency performance checks judge on an emulated target, whose loopback
// round trip measures the machine running the run, not the API, so that a busy machine gives the
// same verdict.
inline constexpr const char* service_time_header_name = "X-Neograde-Service-Ms";

}  // namespace neograde
