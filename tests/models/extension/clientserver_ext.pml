/* The client/server system of Derepas and Gastin [DG01], Fig. 10, in the ref/public
 * extension, with the typos of its listing fixed: the server's mailbox carries a
 * ref to a client, the client's mailbox carries only the answer, and no constant is sent in a
 * ref field.  2 clients, 2 servers.
 * Counts: plain spin 6.5.2 on the desugared program (topspin-py desugar), spin -o1 as verify
 * runs it.  (tests/support/families.py's client_server_ext, which tests/oracles/test_clientserver.py counts,
 * is another reading of Fig. 10: its answers carry a ref too, and a release leaves the
 * server's `cli` as it was: 4,917 states there.)  Only the run without partial-order
 * reduction is here: the states a partial-order search stores depend on the order it takes
 * the processes in, which symmetry reduction changes, so the orbits of plain SPIN's states are
 * not what an exact strategy must store there.  order: S2 on the clients times S2 on the
 * servers, each instance with its public mailbox ([DG01] section 3.7): 4.
   pids: client client server server
   expect: flags=-DNOREDUCE states=6393 transitions=19965 matched=13572 errors=0 order=4 */
mtype = {ack, nack, rel, req};

active [2] proctype client() {
    ref server serv_id;
    public chan cliChan = [4] of {mtype};
idle:
    serv_id = anyRef(server);
    server[serv_id].serChan!req(_lid);
    if
    :: cliChan?ack -> goto work
    :: cliChan?nack -> goto idle
    fi;
work:
    server[serv_id].serChan!rel(_lid);
    goto idle
}

active [2] proctype server() {
    public chan serChan = [4] of {mtype, ref client};
    byte inUse;
    ref client cli;
    do
    :: serChan?req(cli) ->
        if
        :: inUse == 0 -> inUse = 1; client[cli].cliChan!ack
        :: inUse == 1 -> client[cli].cliChan!nack
        fi
    :: serChan?rel(cli) -> inUse = 0
    od
}
