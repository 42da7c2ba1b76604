/* Channels: buffered and rendezvous declarations, an array of channels, local channels,
   channels as parameters and inside messages, xr/xs; every send and receive form: `!`, `!!`
   (sorted), `?`, `??` (random), `?<...>` and `??<...>` (copy, message stays), `eval()`,
   `_`, mtype constants among the receive arguments, `c!a(b)` / `c?a(b)` brace style, and the
   poll forms `c?[...]` / `c??[...]` used as expressions; len, empty, full, nempty, nfull.

   mtype values: req = 3, ack = 2, data = 1 (spin numbers them backwards).  The asserts spell
   out what each operation does, so a run with errors=0 checks the semantics as well.
   xr/xs are refused by pan on rendezvous channels, so they go on q and back.  `??<` is a C
   trigraph: the preprocessor warns about it and must leave it alone.
   Counts measured with plain spin 6.5.2.  After echo replies, it may die at any of init's
   remaining 24 steps (the diamond gives the 24 matched states); partial order reduction
   lets it die first and keeps one path.

   pids: :init: echo
   expect: flags=-DNOREDUCE states=56 transitions=80 matched=24 errors=0
   expect: states=32 transitions=32 errors=0
*/
mtype = { req, ack, data };

chan q = [4] of { mtype, byte };
chan cs[2] = [1] of { byte };
chan rv = [0] of { mtype, chan };
byte x, y;

proctype echo(chan in; byte k)
{
	chan reply;
	chan mine = [1] of { byte };        /* a local channel */
	in?req, reply;                      /* an mtype constant must match; reply is bound */
	mine!k;
	mine?x;
	reply!x + 1
}

init {
	chan back = [1] of { byte };
	mtype m;
	xs q;                               /* only init sends on q ... */
	xr back;                            /* ... and receives on back */
	run echo(rv, 7);
	rv!req, back;                       /* rendezvous: hands over the reply channel */
	back?y;
	assert(y == 8 && empty(back) && nfull(back));

	q!data, 3;                          /* FIFO */
	q!req(1);                           /* brace style: q!req,1 */
	q!!ack, 9;                          /* sorted: ack (2) < req (3), goes before req */
	q!!data, 0;                         /* sorted: data,0 < data,3, goes first */
	assert(full(q) && len(q) == 4 && nempty(q));
	/* q: (data,0) (data,3) (ack,9) (req,1) */
	assert(q?[data, 0] && !q?[ack, 9] && q??[ack, 9] && q??[req, _]);
	q?<m, x>;                           /* copy: m = data, x = 0, q unchanged */
	assert(m == data && x == 0 && len(q) == 4);
	q??<ack, x>;                        /* random copy: x = 9 */
	q??req(y);                          /* random receive in brace style: y = 1 */
	assert(x == 9 && y == 1 && len(q) == 3);
	q?eval(m), _;                       /* m is data: removes (data,0) */
	q?_, x;                             /* removes (data,3) */
	y = 9;
	q??eval(ack), eval(y);              /* removes (ack,9) */
	assert(x == 3 && empty(q));

	cs[0]!5;
	cs[1]!len(cs[0]);
	cs[x - 2]?y;                        /* cs[1]: y = 1 */
	cs[y - 1]?[5] -> cs[0]?x;
	assert(x == 5 && y == 1 && empty(cs[0]) && empty(cs[1]))
}
