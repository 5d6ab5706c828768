// libFuzzer harnesses of the readers at the edge. The contract they check: any input either
// parses or throws InputError (exit 2 with a message); never another exception, a crash, a hang
// or undefined behaviour (the harnesses run with AddressSanitizer and UBSan).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"

template <class F>
int fuzz_one(const uint8_t* data, std::size_t size, F parse) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const ddlsim::InputError&) {
  }
  return 0;
}
