# The kernels' random stream: splitmix64, one 64-bit word of state, copied with the position
# it belongs to (a clone replays the same luck) and seeded by the caller. Kernels `cimport`
# it: `from levata.engine.splitmix cimport next_random, below_n`. Tests that replay a kernel's
# random choices in Python write the same three lines (tests/engine/splitmix.py).

cdef extern from *:
    """
    #include <stdint.h>
    static inline uint64_t lv_next_random(unsigned long long *s) {
        uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    /* uniform in [0, n): Lemire's multiply-shift where 128-bit products exist */
    static inline int lv_below_n(unsigned long long *s, int n) {
    #if defined(__SIZEOF_INT128__)
        return (int)(((unsigned __int128)lv_next_random(s) * (uint64_t)n) >> 64);
    #else
        return (int)(lv_next_random(s) % (uint64_t)n);
    #endif
    }
    """
    unsigned long long next_random "lv_next_random"(unsigned long long* s) noexcept nogil
    int below_n "lv_below_n"(unsigned long long* s, int n) noexcept nogil
