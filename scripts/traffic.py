"""Mixed money traffic against a running `issuing`, and the check that
everything it acknowledged is in a database: shared by scripts/failover
and scripts/pgbouncer.
"""

import subprocess
import threading
import time

from postgres import psql
from service import card, card_body, cardholder


HOLDERS = 4
CARDS = 16


def seeded(sandboxes):
    """Traffic of a sandbox seeded for it (one account, through one or more
    processes): a funded wallet, cardholders, funded cards, and the sandbox
    clock past their first funding's window."""
    sandbox = sandboxes[0]
    sandbox.call("PATCH", "/cards/fund_issuing_wallet", {"amount": "100000000"})
    holders = [cardholder(sandbox, n) for n in range(HOLDERS)]
    cards = [card(sandbox, holders[n % HOLDERS], funding="100000") for n in range(CARDS)]
    sandbox.call("POST", "/test_clock/advance", {"seconds": 301})
    return Traffic(sandboxes, holders, cards)


class Traffic:
    """Money requests from several threads (debits, card creations with
    their funding, card fundings the workers settle, wallet funding), each
    answer kept with when it was sent and answered."""

    def __init__(self, sandboxes, holders, cards):
        self.sandboxes, self.holders, self.cards = sandboxes, holders, cards
        self.sandbox = sandboxes[0]
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.answers = []  # (kind, what, sent, answered, status, code)

    def record(self, kind, what, sent, status, answer):
        code = answer.get("code") if isinstance(answer, dict) else None
        with self.lock:
            self.answers.append((kind, what, sent, time.monotonic(), status, code))

    def debits(self, worker):
        n = 0
        while not self.stop.is_set():
            reference = f"traffic-debit-{worker}-{n}"
            sent = time.monotonic()
            sandbox = self.sandboxes[worker % len(self.sandboxes)]
            status, answer = sandbox.send("PATCH", "/cards/mock_debit_transaction", {
                "card_id": self.cards[n % len(self.cards)], "amount": "7", "transaction_reference": reference,
            })
            self.record("debit", reference, sent, status, answer)
            n += 1

    def card_creations(self):
        n = 0
        while not self.stop.is_set():
            sent = time.monotonic()
            status, answer = self.sandbox.send(
                "POST", "/cards/create_card", card_body(self.holders[n % len(self.holders)], funding="300"))
            created = (answer or {}).get("data", {}).get("card_id") if status == 200 else None
            self.record("card", created, sent, status, answer)
            n += 1

    def fundings(self):
        """Each seeded card funded once (a card takes one funding in 5 minutes)."""
        for n, card_id in enumerate(self.cards):
            if self.stop.is_set():
                return
            reference = f"traffic-funding-{n}"
            sent = time.monotonic()
            status, answer = self.sandbox.send("PATCH", "/cards/fund_card_asynchronously", {
                "card_id": card_id, "amount": "500", "transaction_reference": reference, "currency": "USD",
            })
            self.record("funding", reference, sent, status, answer)
            time.sleep(0.4)

    def wallet(self):
        while not self.stop.is_set():
            sent = time.monotonic()
            status, answer = self.sandbox.send("PATCH", "/cards/fund_issuing_wallet", {"amount": "1000"})
            self.record("wallet", None, sent, status, answer)
            time.sleep(0.05)

    def run(self):
        jobs = [lambda w=w: self.debits(w) for w in range(3)] + [self.card_creations, self.fundings, self.wallet]
        self.threads = [threading.Thread(target=job) for job in jobs]
        for thread in self.threads:
            thread.start()

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def acknowledged_after(self, moment):
        """When the first request sent after `moment` was acknowledged, or
        None while none was."""
        with self.lock:
            times = [answered for (_, _, sent, answered, status, _) in self.answers
                     if sent > moment and 200 <= status < 300]
        return min(times) if times else None




def in_list(values):
    """SQL's list of `values`, as text literals."""
    return ",".join(["NULL"] + ["'" + v.replace("'", "''") + "'" for v in values])


def check(traffic, binary, port, allowed):
    """What went wrong: an acknowledged request missing from the database
    `issuing` on `port`, an acknowledged funding not settled, `issuing
    ledger check` failing there, or an answer neither a 2xx nor one of
    `allowed` (status, code). Prints what was acknowledged and answered."""
    failures = []
    acknowledged = [a for a in traffic.answers if 200 <= a[4] < 300]
    by_kind = lambda kind: [what for (k, what, *_) in acknowledged if k == kind]
    debits, cards, fundings = by_kind("debit"), by_kind("card"), by_kind("funding")
    found = int(psql(port, f"SELECT count(*) FROM card_transactions WHERE client_reference IN ({in_list(debits)})"))
    if found != len(debits):
        failures.append(f"{len(debits) - found} of {len(debits)} acknowledged debits are missing")
    found = int(psql(port, f"SELECT count(*) FROM cards WHERE id IN ({in_list(cards)})"))
    if found != len(cards):
        failures.append(f"{len(cards) - found} of {len(cards)} acknowledged cards are missing")
    for _ in range(300):
        states = psql(port, "SELECT transaction_reference || ' ' || state FROM card_transfers "
                            f"WHERE transaction_reference IN ({in_list(fundings)})").splitlines()
        if len(states) == len(fundings) and all(s.endswith(" succeeded") for s in states):
            break
        time.sleep(0.1)
    else:
        failures.append(f"acknowledged fundings not all settled: {len(states)} of {len(fundings)} found: {states}")
    refused = [(k, s, c) for (k, _, _, _, s, c) in traffic.answers if not 200 <= s < 300 and (s, c) not in allowed]
    if refused:
        failures.append(f"answers other than 2xx and {allowed}: {refused[:5]}")
    ledger = subprocess.run(
        [binary, "ledger", "check", "--database-url", f"postgres://root@127.0.0.1:{port}/issuing?sslmode=disable"],
        capture_output=True, text=True,
    )
    if ledger.returncode != 0:
        failures.append(f"ledger check: {ledger.stdout}{ledger.stderr}")
    statuses = {}
    for (*_, status, code) in traffic.answers:
        statuses[(status, code)] = statuses.get((status, code), 0) + 1
    print(f"acknowledged and found in the database: {len(debits)} debits, {len(cards)} cards, "
          f"{len(fundings)} fundings (settled), {len(by_kind('wallet'))} wallet fundings")
    print(f"answers: {dict(sorted(statuses.items(), key=str))}")
    return failures
