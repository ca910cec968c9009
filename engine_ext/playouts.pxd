# Playouts: the C loop that plays a deal out, for kernels that cimport it (a later search can
# run its rollouts here without a Python call per deal).
#
#   from levata.engine.playouts cimport run_playout, P_GREEDY

from levata.engine.cardmask cimport mask_t
from levata.engine.rules cimport tk_pot, tk_rules, tk_trick

cdef enum:
    P_RANDOM = 0      # uniform over the legal cards
    P_GREEDY = 1      # lead high; low under a winning partner; win cheaply; else low

cdef int greedy_card(const tk_rules* r, mask_t legal, const tk_trick* t, int seat) noexcept nogil
cdef void run_playout(
    const tk_rules* r,
    mask_t* hands,
    tk_trick t,
    int policy,
    double epsilon,
    unsigned long long* rng,
    int* won,
    int* pts,
    const tk_pot* pot,
) noexcept nogil
