/* Four global rendezvous channels, named in the text only (no variable holds a channel id),
   used alike by a pourer and a taker: any permutation of them is valid (24 of them), and
   none changes a state, since a rendezvous channel is empty in every stored state.  The
   reduction must act on states as the trivial group: as many states as plain SPIN. */
chan e1 = [0] of { byte };
chan f1 = [0] of { byte };
chan e2 = [0] of { byte };
chan f2 = [0] of { byte };
active proctype pourer() { end: do :: e1!0 :: f1!0 :: e2!0 :: f2!0 od }
active proctype taker() { end: do :: e1?0 :: f1?0 :: e2?0 :: f2?0 od }
