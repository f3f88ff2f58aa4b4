# Host floating-point policy (docs/adr/0001-bit-identical-arithmetic.md):
# no implicit contraction anywhere on the host, so every multiply-add that
# decides the tree or the walk is the explicit std::fma written in the source,
# and x86-64-v3 so that std::fma is one instruction (and AVX2 vectorises the
# force loops). Never fast-math: it breaks the bit-identical tree contract.
add_library(orrery_flags INTERFACE)
add_library(orrery::flags ALIAS orrery_flags)
target_compile_options(orrery_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off -march=x86-64-v3 -Wall -Wextra -Wpedantic>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-ffp-contract=off,-march=x86-64-v3 --expt-relaxed-constexpr>)

set(ORRERY_SANITIZE "" CACHE STRING "Sanitizers for the debug-asan preset, e.g. address,undefined")
if(ORRERY_SANITIZE)
  target_compile_options(orrery_flags INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${ORRERY_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all>)
  target_link_options(orrery_flags INTERFACE -fsanitize=${ORRERY_SANITIZE})
endif()
