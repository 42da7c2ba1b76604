/* Claims: a never claim (selected with #ifdef: a safety claim that ends on a violation, or
   a liveness claim with an accept label) that uses remote references, enabled(), pc_value()
   and _last, as never claims may; a trace or (with -DNOTRACE) a notrace event assertion on
   channel q (a model may have only one of them); end labels (end, end_wait) and a label
   inside a loop (send_done).

   The pinger and the ponger alternate on q and r; x counts rounds modulo 3.
   Default claim: [] (x < 3 && _last < 2), a safety claim that ends (breaks out of its loop)
   on a violation: it holds.
   LIVE claim: accepts the runs in which the ponger ends up blocked at its loop head for
   ever; the pinger keeps feeding it, so there is none.
   trace: every operation on q follows (q!ping; q?ping)*: it holds.
   NOTRACE: q!ping; q?ping; q!ping must not happen: it does, in the second round
   ("event_trace error (all events matched)").
   Counts measured with plain spin 6.5.2.

   pids: pinger ponger
   expect: states=15 transitions=16 errors=0
   expect: defines=-DLIVE pan=-a states=24 transitions=43 errors=0
   expect: defines=-DNOTRACE states=6 transitions=6 errors=1
   expect: flags=-DNOREDUCE defines=-DLIVE pan=-a states=24 transitions=43 errors=0
*/
mtype = { ping, pong };

chan q = [1] of { mtype };
chan r = [1] of { mtype };
byte x;

active proctype pinger()
{
end:
	do
	:: q!ping;
send_done:
	   r?pong;
	   x = (x + 1) % 3
	od
}

active proctype ponger()
{
end_wait:
	do
	:: q?ping -> r!pong
	od
}

#ifdef LIVE
never {    /* <>[] (ponger at its loop head and not enabled) */
T0:
	do
	:: true
	:: (ponger[1]@end_wait && !enabled(1)) -> goto accept_stuck
	od;
accept_stuck:
	do
	:: (ponger[1]@end_wait && !enabled(1) && pc_value(1) > 0)
	od
}
#else
never {    /* [] (x < 3 && _last < 2) */
	do
	:: (x >= 3 || _last >= 2) -> break
	:: else
	od
}
#endif

#ifdef NOTRACE
notrace {    /* this sequence must not occur on q; it does: an error */
	q!ping;
	q?ping;
	q!ping
}
#else
trace {      /* every operation on q must follow this pattern; they do */
	do
	:: q!ping;
	   q?ping
	od
}
#endif
