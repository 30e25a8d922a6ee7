/*
 * Kernel names as traces and profilers spell them, reduced to one canonical form so that
 * `validate` can pair launches by their full name (namespaces, template arguments and
 * parameters), and the rule that says when two canonical names may name one kernel.
 *
 * Canonical form (gf_kname_canonical):
 *  - a mangled name (_Z...) is demangled with libiberty's cplus_demangle (GNU c++filt's
 *    demangler); a name it does not demangle is kept as it is;
 *  - every spelling of an anonymous namespace, "(anonymous namespace)" (libiberty),
 *    "<unnamed>" (Nsight Compute) and a raw "_GLOBAL__N_..." identifier, becomes "{anon}";
 *  - Nsight's lambdas "[lambda(float) (instance 1)]" become libiberty's "{lambda(float)#1}";
 *  - the return type "void " is dropped, and spaces except those between two identifier
 *    characters ("char *" = "char*", "> >" = ">>");
 *  - integer literal suffixes and bool literals as Nsight prints them ("2ul" = "2",
 *    "false" = "0");
 *  - Nsight prints a template kernel's parameters in terms of its template parameters,
 *    T1, T2, ... for the first, second, ... ("vectorized_layer_norm_kernel<float, float, 0>
 *    (int, T2, const T1 *, ...)"): each Tn there becomes the n-th template argument;
 *  - a leading "const" of a template argument or parameter moves after its type, as
 *    libiberty prints it ("const float *" = "float const*").
 *
 * Compatibility (gf_kname_compatible): equal token by token, except that two qualified
 * names (a::b::c) match when their last components are equal and the qualifiers of one
 * are contained, in order, in the other's: Nsight Compute 2025.3 prints
 * "at::<unnamed>::vectorized_layer_norm_kernel" for the trace's
 * "at::native::(anonymous namespace)::vectorized_layer_norm_kernel" (and "at::GeluType" for
 * "at::native::GeluType"). A bare name (no template arguments, no parameters: what
 * `ncu --print-kernel-base function` prints) is compared with the other's function name
 * alone. So foo::kernel and bar::kernel, or scale<float> and scale<double>, never match.
 *
 * Prefix: gf_kname_.
 */
#ifndef GF_VALIDATE_KNAME_H
#define GF_VALIDATE_KNAME_H

#include <stddef.h>

/* The canonical form of name, malloc'd (the caller frees); NULL when out of memory. */
char *gf_kname_canonical(const char *name);

/* The function's own name in a canonical name (the last component of its leading
 * qualified name, "vecAdd" for "ns::vecAdd<float>(float*)"), into buf (n bytes); returns
 * buf. */
const char *gf_kname_base(const char *canon, char *buf, size_t n);

/* 1 when canonical names a and b may name the same kernel (rules above), else 0. */
int gf_kname_compatible(const char *a, const char *b);

/* 1 when the function names alone (namespaces and name, as above) of canonical names a
 * and b match, whatever their template arguments and parameters. */
int gf_kname_same_function(const char *a, const char *b);

#endif
