# The solver's tables: the transposition table and the winning-ranks table, and the bit
# tricks and memory under them; see solver_table.pyx. The key helpers the search calls at
# every trick start (tt_find, shape_key) are inline here; look-ups and stores are C calls.
#
#   from levata.engine.solver_table cimport pos_key, tt_find, wr_probe, wr_store

from levata.engine.cardmask cimport mask_t, popcount
from levata.engine.rules cimport TK_SUITS
from levata.engine.solver_state cimport Ctx, tt_entry

cdef extern from *:
    """
    /* The C helpers of the tables (and of the search, which squeezes hands into pext
       space for them). Each kernel that cimports this file compiles its own copy, so each
       one that calls tk_pext sets its own tk_use_bmi2 at import:
       tk_use_bmi2 = tk_cpu_bmi2(). */
    #include <stdint.h>
    /* Parallel bit extract: BMI2 when the CPU has it, a portable loop otherwise. The kernel
       is built without -mbmi2 (one wheel for every x86-64), so the instruction lives in a
       function compiled for that target and is chosen at import. */
    static inline uint64_t tk_pext_sw(uint64_t x, uint64_t m) {
        uint64_t r = 0, bb = 1;
        while (m) {
            uint64_t low = m & (0 - m);
            if (x & low) r |= bb;
            bb <<= 1;
            m ^= low;
        }
        return r;
    }
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __attribute__((target("bmi2"))) static uint64_t tk_pext_hw(uint64_t x, uint64_t m) {
        return __builtin_ia32_pext_di(x, m);
    }
    __attribute__((target("bmi2"))) static uint64_t tk_pdep_hw(uint64_t x, uint64_t m) {
        return __builtin_ia32_pdep_di(x, m);
    }
    /* AMD's Zen 1 and 2 have the instruction in microcode, about 50 ns for a mask of 40
       cards (slower than the shifts below): use it only where it is fast */
    static int tk_cpu_bmi2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("bmi2")
            && !__builtin_cpu_is("znver1") && !__builtin_cpu_is("znver2");
    }
    #else
    static uint64_t tk_pext_hw(uint64_t x, uint64_t m) { return tk_pext_sw(x, m); }
    static uint64_t tk_pdep_hw(uint64_t x, uint64_t m) { (void)x; (void)m; return 0; }
    static int tk_cpu_bmi2(void) { return 0; }
    #endif
    static int tk_use_bmi2 = 0;
    /* Without a fast instruction: Hacker's Delight's compress, whose six shift masks depend
       on the mask alone. A search squeezes every hand through the same mask (the live
       cards) at a node: work the masks out once (tk_squeeze_prep, ~30 ns), then each hand
       is six shift steps (tk_squeeze). */
    typedef struct { uint64_t m; uint64_t mv[6]; } tk_squeeze_t;
    static inline void tk_squeeze_prep(tk_squeeze_t* p, uint64_t m) {
        uint64_t mk = ~m << 1, mp, mv;
        int i;
        p->m = m;
        if (tk_use_bmi2) return;  /* tk_squeeze takes the instruction: no masks to work out */
        for (i = 0; i < 6; i++) {
            mp = mk ^ (mk << 1);
            mp ^= mp << 2; mp ^= mp << 4; mp ^= mp << 8; mp ^= mp << 16; mp ^= mp << 32;
            mv = mp & m;
            p->mv[i] = mv;
            m = (m ^ mv) | (mv >> (1 << i));
            mk &= ~mp;
        }
    }
    static inline uint64_t tk_squeeze(const tk_squeeze_t* p, uint64_t x) {
        uint64_t t;
        int i;
        if (tk_use_bmi2) return tk_pext_hw(x, p->m);
        x &= p->m;
        for (i = 0; i < 6; i++) {
            t = x & p->mv[i];
            x = (x ^ t) | (t >> (1 << i));
        }
        return x;
    }
    static inline uint64_t tk_pext(uint64_t x, uint64_t m) {
        tk_squeeze_t p;
        if (tk_use_bmi2) return tk_pext_hw(x, m);
        tk_squeeze_prep(&p, m);
        return tk_squeeze(&p, x);
    }
    /* parallel bit deposit, the inverse: on table hits (a quarter of the nodes), where the
       loop over the live cards was 2% of the solver's time; the instruction where pext's is
       fast (tk_use_bmi2 is 0 where tk_pdep_hw is a stub) */
    static inline uint64_t tk_pdep(uint64_t x, uint64_t m) {
        uint64_t r = 0, bb = 1;
        if (tk_use_bmi2) return tk_pdep_hw(x, m);
        while (m) {
            uint64_t low = m & (0 - m);
            if (x & bb) r |= low;
            bb <<= 1;
            m ^= low;
        }
        return r;
    }
    /* murmur3's finaliser: every input bit moves every output bit */
    static inline uint64_t tk_fmix(uint64_t k) {
        k ^= k >> 33; k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL;
        k ^= k >> 33; return k;
    }
    #define tk_golden ((uint64_t)0x9E3779B97F4A7C15ULL)
    /* ask for a cache line ahead of its use: table look-ups miss the cache, and misses
       started together overlap where a chain of dependent loads waits for each in turn */
    #if defined(__GNUC__) || defined(__clang__)
    #define tk_prefetch(p) __builtin_prefetch((const void*)(p))
    #else
    #define tk_prefetch(p) ((void)(p))
    #endif
    /* The table: zeroed pages from the system, asking Linux for 2 MiB pages. Look-ups land
       anywhere in tens of MiB, and with 4 KiB pages nearly each one also misses the TLB. */
    #include <stdlib.h>
    #if defined(__unix__) || defined(__APPLE__)
    #include <sys/mman.h>
    #endif
    static inline void* tk_table_alloc(size_t n) {
    #if (defined(__unix__) || defined(__APPLE__)) && defined(MAP_ANONYMOUS)
        void* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(p, n, MADV_HUGEPAGE);
    #endif
        return p;
    #else
        return calloc(n, 1);
    #endif
    }
    static inline void tk_table_free(void* p, size_t n) {
        if (p == NULL) return;
    #if (defined(__unix__) || defined(__APPLE__)) && defined(MAP_ANONYMOUS)
        munmap(p, n);
    #else
        (void)n;
        free(p);
    #endif
    }
    """
    void* tk_table_alloc(size_t n) nogil
    void tk_table_free(void* p, size_t n) nogil
    unsigned long long tk_pext(unsigned long long x, unsigned long long m) nogil
    ctypedef struct tk_squeeze_t:
        unsigned long long m
    void tk_squeeze_prep(tk_squeeze_t* p, unsigned long long m) nogil
    unsigned long long tk_squeeze(const tk_squeeze_t* p, unsigned long long x) nogil
    unsigned long long tk_pdep(unsigned long long x, unsigned long long m) nogil
    unsigned long long tk_fmix(unsigned long long k) nogil
    unsigned long long tk_golden
    void tk_prefetch(const void* p) nogil
    int tk_cpu_bmi2()
    int tk_use_bmi2


cdef unsigned long long pos_key(const Ctx* c, int leader, mask_t live) noexcept nogil
cdef tt_entry* tt_slot(Ctx* c, unsigned long long key, int depth) noexcept nogil

cdef unsigned long long wr_bucket(
    const Ctx* c, unsigned long long shape, mask_t live
) noexcept nogil
cdef bint wr_probe(
    Ctx* c, unsigned long long shape, unsigned long long bucket, mask_t live,
    const mask_t* comp, int alpha, int beta, int* lo, int* hi, mask_t* wlo, mask_t* whi,
    int* hint,
) noexcept nogil
cdef void wr_probe_sets(
    Ctx* c, unsigned long long shape, mask_t live, const mask_t* comp, int alpha, int beta,
    int* lo, int* hi, mask_t* wlo, mask_t* whi, int* hint,
) noexcept nogil
cdef void wr_store(
    Ctx* c, unsigned long long shape, unsigned long long bucket, mask_t live, const mask_t* comp,
    mask_t win, int depth, int lo, int hi, int hint,
) noexcept nogil

cdef void table_layout(Ctx* c, void* mem, int bits) noexcept nogil
cdef void wr_clear(void* mem, int bits, bint records) noexcept nogil


cdef inline tt_entry* tt_find(const Ctx* c, unsigned long long key) noexcept nogil:
    cdef unsigned long long i = key & c.tt_mask
    if c.tt[i].key == key:
        return &c.tt[i]
    if c.tt[i ^ 1].key == key:
        return &c.tt[i ^ 1]
    return NULL


cdef inline unsigned long long shape_key(const Ctx* c, int leader) noexcept nogil:
    """Hash of the leader and the length of every suit in every hand."""
    cdef unsigned long long h = tk_fmix(<unsigned long long>(leader + 1 + 0x500))
    cdef unsigned long long x
    cdef int s, e
    for s in range(c.n):
        x = 0
        for e in range(TK_SUITS):
            x = x * 65 + popcount(c.hand[s] & c.r.suit_mask[e])
        h = tk_fmix(h ^ (x + (<unsigned long long>s) * tk_golden))
    return h if h else 1
