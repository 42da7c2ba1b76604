/* Partners: four identical members pair up through a shared lobby.  A member with no partner
   (0: the pid of `nobody`, which the group fixes) puts its pid in the lobby or takes a partner's
   pid out of it; a member with a partner may drop it.  The group is S4 on the members.

   The partner values form any functional graph on the members, so symmetric states differ in
   ways that keys refined by who names whom (1-dimensional Weisfeiler-Leman) cannot tell
   apart: in a state with 1->2, 2->3, 3->4, 4->1 every member has the same key, yet no
   transposition of two members fixes it (one does in 1->2, 2->1, 3->4, 4->3).  The sorting
   shortcut of `refine` must then leave the tie to its search; the orbit oracle of
   tests/oracles/test_differential.py checks that every exact strategy stores one state per orbit.
   Counts measured with plain spin 6.5.2.

   pids: nobody member member member member
   expect: flags=-DNOREDUCE states=10250 transitions=50126 matched=39876 errors=0
*/
chan lobby = [2] of { pid };

active proctype nobody()
{
	skip
}

active [4] proctype member()
{
	pid partner;
	do
	:: atomic { partner == 0 && nfull(lobby) -> lobby!_pid }
	:: atomic { partner == 0 && nempty(lobby) -> lobby?partner }
	:: partner != 0 -> partner = 0
	od
}
