/* The client/server system of seed 003 Fig. 10 in the ref/public extension, with the typos
 * of its listing fixed (../shared/notes/seeds-002-004.md 2.10): the server's mailbox carries a
 * ref to a client, the client's mailbox carries only the answer, and no constant is sent in a
 * ref field.  2 clients, 2 servers. */
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
