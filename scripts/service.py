"""The `issuing` binary as the scripts drive it: started as a process, and
its sandbox called over HTTP with a test key. Shared by scripts/fuzz-api,
scripts/failover and scripts/pgbouncer.
"""

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request


def start(binary, database_url, log_path, *args):
    """`issuing serve --demo` on `database_url`, and what it printed: the
    API's and the relay's base URLs and the demo account's test key."""
    server = subprocess.Popen(
        [
            binary, "serve", "--demo",
            "--database-url", database_url,
            "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0", "--dashboard-listen", "off",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=open(log_path, "w"),
        text=True,
    )
    found = {}
    for line in server.stdout:
        for name, pattern in [
            ("api", r"issuing API listening on (\S+)"),
            ("relay", r"card-details relay listening on (\S+)"),
            ("key", r"demo account test key: (\S+)"),
        ]:
            if m := re.search(pattern, line):
                found[name] = m.group(1)
        if len(found) == 3:
            return server, found
    sys.exit(f"the server stopped before it was ready; see {log_path}")


class Sandbox:
    def __init__(self, api, key):
        self.base = f"{api}/v1/issuing/sandbox"
        self.key = key

    def send(self, method, path, body=None, timeout=30):
        """The status and the JSON body of a call; status 0 when no answer
        came (refused, reset, timed out)."""
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"token": f"Bearer {self.key}", "content-type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as e:
            try:
                return e.code, json.load(e)
            except ValueError:
                return e.code, None
        except (OSError, ValueError):
            return 0, None

    def call(self, method, path, body=None):
        """The `data` of a call that must succeed."""
        status, answer = self.send(method, path, body)
        if not 200 <= status < 300:
            sys.exit(f"{method} {path} answered {status}: {answer}")
        return answer["data"]


def cardholder(sandbox, n):
    """A verified Nigerian cardholder; `n` (below 100) keeps phone and BVN unique."""
    return sandbox.call("POST", "/cardholder/register_cardholder_synchronously", {
        "first_name": "Adaeze", "last_name": "Okafor",
        "phone": f"+23480312345{n:02}", "email_address": f"adaeze{n}@example.com",
        "address": {
            "address": "Admiralty Way", "city": "Lekki", "country": "Nigeria",
            "house_no": "12B", "lga": "Eti Osa", "postal_code": "106104", "state": "Lagos",
        },
        "identity": {
            "id_type": "NIGERIAN_BVN_VERIFICATION", "bvn": f"222123456{n:02}",
            "selfie_image": "https://example.com/selfie.jpg",
        },
    })["cardholder_id"]


def card_body(holder, currency="USD", funding="100000"):
    return {
        "cardholder_id": holder, "card_type": "virtual", "card_brand": "Mastercard",
        "card_currency": currency, "card_limit": "500000", "funding_amount": funding,
    }


def card(sandbox, holder, currency="USD", funding="100000"):
    return sandbox.call("POST", "/cards/create_card", card_body(holder, currency, funding))["card_id"]
