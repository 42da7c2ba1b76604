/* A token relayed among three peers, stated with refs ([DG01]), with an assertion that only
 * an asymmetric run breaks.  A peer takes a free token, or, holding it, counts a turn in its
 * public `turns`, names itself in the global ref `last` and hands the token to any peer; after
 * its second turn it drops the token, asserting first that the peer it got the token from
 * (`last`, if another peer) has not had exactly one turn.  The assertion treats every peer
 * alike (it names peers only through refs and _lid), so the declared group S3 is a symmetry
 * and stays in force.  It fails only where the peers differ: a peer with two turns holds the
 * token, handed to it by a peer with one (P: turn, to P; turn, to Q; Q: turn, to P; P drops
 * it), a state that no permutation but the identity fixes.  A reduced search meets that state
 * or another of its orbit, where the assertion fails too; the differential test checks that
 * every strategy reports the assertion violation plain SPIN reports.
 * Counts: plain spin 6.5.2 on the desugared program (topspin-py desugar), spin -o1 as verify
 * runs it; pan stops at the first error, depth 67.  With -A (assertions off) the whole state
 * space, for the orbit oracle.  Each option is atomic, which keeps the state space small.
 * order: the three peers are the instances of the one proctype refs refer to: S3.
   pids: peer peer peer
   expect: flags=-DNOREDUCE states=46 transitions=49 errors=1 depth=67 order=6
   expect: flags=-DNOREDUCE pan=-A states=238 transitions=559 matched=321 errors=0 order=6 */
ref peer holder = _undef_ref;
ref peer last = _undef_ref;

active [3] proctype peer()
{
    public byte turns;
    do
    :: atomic { holder == _undef_ref -> holder = _lid }
    :: atomic { holder == _lid && turns < 2 -> turns++; last = _lid; holder = anyRef(peer) }
    :: atomic { holder == _lid && turns == 2 ->
        assert(last == _lid || last == _undef_ref || peer[last].turns != 1);
        turns = 0; last = _undef_ref; holder = _undef_ref }
    od
}
