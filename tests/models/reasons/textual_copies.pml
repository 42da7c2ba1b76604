/* Two proctypes written out twice, as SPIN's snoopy.pml does (cpu0, cpu1): copies of each
   other up to the channel each names.  Processes of different proctypes are never permuted. */
mtype = { req, ack };
chan to0 = [1] of { mtype };
chan to1 = [1] of { mtype };
chan back = [2] of { mtype };
active proctype client0() { end: do :: to0!req -> back?ack od }
active proctype client1() { end: do :: to1!req -> back?ack od }
active proctype server() { end: do :: to0?req -> back!ack :: to1?req -> back!ack od }
