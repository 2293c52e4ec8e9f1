#!/usr/bin/env python3
"""Builds regions.json: the states/regions and LGAs/districts that
cardholder addresses are checked against.

Sources (downloaded from PyPI by this script, see SOURCES.md):
- Nigeria: 36 states + FCT and 774 LGAs from `naija-data` (CC BY 4.0,
  compiled from INEC and OCHA data), naija_data/_data/{states,lgas}.json.
- Ghana (regions), Kenya (counties), Uganda (regions and their districts
  and cities): ISO 3166-2 from `pycountry` (LGPL-2.1; the ISO 3166-2 data
  comes from Debian's iso-codes).

    python3 make_regions.py > regions.json
"""
import json
import sys

from pypi import wheel


def main():
    naija = wheel("naija-data", "1.0.0")
    states = json.loads(naija.read("naija_data/_data/states.json"))
    lgas = json.loads(naija.read("naija_data/_data/lgas.json"))
    nigeria = [
        {
            "name": s["name"],
            "code": s["code"],
            "lgas": sorted(l["name"] for l in lgas if l["state_code"] == s["code"]),
        }
        for s in sorted(states, key=lambda s: s["name"])
    ]

    iso = json.loads(wheel("pycountry", "26.2.16").read("pycountry/databases/iso3166-2.json"))["3166-2"]

    def subdivisions(country, types):
        return [d for d in iso if d["code"].startswith(country + "-") and d["type"] in types]

    def flat(country, types):
        return [
            {"name": d["name"], "code": d["code"].split("-", 1)[1], "lgas": []}
            for d in sorted(subdivisions(country, types), key=lambda d: d["name"])
        ]

    uganda = [
        {
            "name": region["name"],
            "code": region["code"].split("-", 1)[1],
            "lgas": sorted(d["name"] for d in subdivisions("UG", {"District", "City"}) if d.get("parent") == region["code"]),
        }
        for region in sorted(subdivisions("UG", {"Geographical region"}), key=lambda d: d["name"])
    ]

    out = {
        "sources": {
            "NG": "naija-data 1.0.0 (PyPI), CC BY 4.0: states.json and lgas.json (INEC, OCHA)",
            "GH": "pycountry 26.2.16 (PyPI): ISO 3166-2 regions",
            "KE": "pycountry 26.2.16 (PyPI): ISO 3166-2 counties",
            "UG": "pycountry 26.2.16 (PyPI): ISO 3166-2 regions with their districts and cities",
        },
        "countries": {
            "NG": {"name": "Nigeria", "states": nigeria},
            "GH": {"name": "Ghana", "states": flat("GH", {"Region"})},
            "KE": {"name": "Kenya", "states": flat("KE", {"County"})},
            "UG": {"name": "Uganda", "states": uganda},
        },
    }
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    print()


if __name__ == "__main__":
    main()
