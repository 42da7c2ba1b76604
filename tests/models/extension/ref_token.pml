/* A token among three peers, stated with refs ([DG01]): `holder` names the peer that holds
 * it (_undef_ref: nobody); a peer takes a free token, counts its turns in a public variable and
 * hands the token to any peer, or drops it after its second turn.  The declared group is S3 on
 * the peers, which tests/symmetry/test_declared_group.py checks against the orbit oracle.
 * Counts: plain spin 6.5.2 on the desugared program (topspin-py desugar), spin -o1 as verify
 * runs it.  Every peer steps only on the global holder, so partial-order reduction has nothing
 * to reduce: the same counts with and without it.  order: the three peers are the instances
 * of the one proctype refs refer to, and nothing tells them apart, so S3 ([DG01] section 3.7).
   pids: peer peer peer
   expect: flags=-DNOREDUCE states=5012 transitions=17617 matched=12605 errors=0 order=6
   expect: states=5012 transitions=17617 matched=12605 errors=0 order=6 */
ref peer holder = _undef_ref;

active [3] proctype peer()
{
    public byte turns;
    do
    :: holder == _undef_ref -> holder = _lid
    :: holder == _lid && turns < 2 -> turns++; holder = anyRef(peer)
    :: holder == _lid && turns == 2 -> turns = 0; holder = _undef_ref
    od
}
