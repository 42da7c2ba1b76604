/* Channels filled by init: init's leading atomic block sends one token into each of two
   buffered channels and starts one relay per channel.  The sends go to distinct, empty,
   buffered channels with constant messages, so the block cannot block and its statements
   commute: it is a set, like the runs and constant assignments of a set-up block
   (validity._is_setup), and swapping the relays with their channels is a symmetry.  A relay
   passes its token back into its own channel; the assertion fails once the relays have
   passed four tokens between them, which either relay can complete alike.
   order: (q[0] q[1])(Relay:1 Relay:2), order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=16 transitions=16 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
chan q[2] = [2] of { byte };
byte total;
proctype Relay(chan c) {
	byte v;
end:	do
	:: c?v -> total++; assert(total < 4); c!v
	od
}
init { atomic { q[0]!1; q[1]!1; run Relay(q[0]); run Relay(q[1]) } }
