#include "core/error.hpp"

#include <iostream>

#include "core/text.hpp"

namespace ddlsim {
inline namespace core_layer {

int exit_code_of(const std::function<int()>& command) {
  try {
    return command();
  } catch (const HelpRequested& h) {
    std::cout << h.what();
    return 0;
  } catch (const InputError& e) {
    std::cerr << "ddlsim: error: " << terminal_safe(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ddlsim: internal error: " << terminal_safe(e.what()) << "\n";
    return 1;
  }
}

}  // namespace core_layer
}  // namespace ddlsim
