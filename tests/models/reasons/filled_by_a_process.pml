/* Two identical servers, each given its own channel, but a third process fills only q[0]:
   the servers are told apart by what A sends, which detect must say. */
chan q[2] = [1] of { byte };
active proctype A() { q[0]!7 }
proctype Server(chan c) { byte v; end: do :: c?v -> c!v od }
init { atomic { run Server(q[0]); run Server(q[1]) } }
