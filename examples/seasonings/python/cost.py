"""The RFC's cost estimator, as middleware: `ctywire-seasonings middleware`
calls it with each resource change of a plan and with the whole plan.

    terraform show -json tfplan | ctywire-seasonings middleware -- python cost.py prices.json

`prices.json` maps a resource type to its monthly price in dollars
({"aws_instance": "30.00", ...}, decimal strings so cents stay exact), and
may set "budget". Each priced resource that is created or replaced gets
a warning with its cost; the plan fails when what it adds costs more than
the budget. (`before` and `after` carry their types, as dynamic values:
`read_dynamic` reads them, for prices by attribute.) Only the `msgpack`
package is needed.
"""

import decimal
import json
import sys

from seasonings import Plugin

plugin = Plugin("cost", "0.1.0")

with open(sys.argv[1]) as f:
    table = json.load(f, parse_float=decimal.Decimal)
budget = decimal.Decimal(str(table.pop("budget"))) if "budget" in table else None
prices = {t: decimal.Decimal(str(p)) for t, p in table.items()}

# What a plan adds: creating or replacing an object starts paying for it.
ADDS = ("create", "replace")


def cost(change):
    if change["planned_action"] not in ADDS:
        return None
    return prices.get(change["resource_type"])


@plugin.hook("postPlan")
def post_plan(change):
    price = cost(change)
    if price is None:
        return {"status": "success"}
    return {"status": "success", "message": f"adds ${price:.2f}/month"}


@plugin.hook("planStageCompleted")
def plan_completed(plan):
    total = sum((cost(c) or 0 for c in plan["resources"]), decimal.Decimal(0))
    message = f"the plan adds ${total:.2f}/month"
    if budget is not None and total > budget:
        return {"status": "fail", "message": f"{message}, over the budget of ${budget:.2f}"}
    return {"status": "success", "message": message}


if __name__ == "__main__":
    plugin.run()
