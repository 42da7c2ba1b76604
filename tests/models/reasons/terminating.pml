/* Three identical processes that terminate: SPIN removes terminated processes in reverse
   pid order, which no permutation of them respects, so none is permuted (symmetry/validity/). */
byte x;
active [3] proctype P() { x++; x-- }
