/* A token among three peers, stated with refs (seed 003): `holder` names the peer that holds
 * it (_undef_ref: nobody); a peer takes a free token, counts its turns in a public variable and
 * hands the token to any peer, or drops it after its second turn.  The declared group is S3 on
 * the peers, which tests/test_declared_group.py checks against the orbit oracle. */
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
