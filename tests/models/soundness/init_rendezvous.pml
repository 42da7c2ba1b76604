/* Twin of init_sends.pml with rendezvous channels: init's first send hands its token to the
   relay of q[0], and the atomic block loses control there, so the relay of q[0] can move
   before init sends into q[1].  The order of the sends is observable, the block is not a set
   (validity._is_setup accepts sends only into buffered channels), and init's text changes
   under the swap of the relays: no permutation is valid.  The relay of q[0] can pass its
   token on while init still waits to hand the other one over; the assertion fails there.
   order: 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=5 transitions=5 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
chan q[2] = [0] of { byte };
chan out = [2] of { byte };
proctype Relay(chan c) {
	byte v;
	c?v; out!v;
end:	do :: c?v od
}
init {
	atomic { run Relay(q[0]); run Relay(q[1]); q[0]!1; q[1]!1 };
	assert(len(out) == 0)
}
