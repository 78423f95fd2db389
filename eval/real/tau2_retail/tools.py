"""The 16 retail tools over the dict database, with τ²'s checks and state changes, in its order.

Written from τ²-bench's documented tool behaviour (MIT; see NOTICE). Every failed check raises
`RetailError` before the database changes, except where τ² itself changes state first (kept so the
database hashes match τ²'s). One quirk kept on purpose: `modify_pending_order_items` gives every
modified item the price and options of the *last* new variant of the call, as τ² does.
Results are JSON-ready dicts/strings (a copy, so the agent cannot mutate the database through them).
`RetailTools` is the read-only look-ups (`RetailReads`) plus the order- and user-changing tools
(`RetailWrites`), both over one copy-on-write database (`RetailDatabase`, which also dispatches a
call by name).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any


class RetailError(ValueError):
    """A tool's refusal (τ² raises ValueError; the agent sees the message as the tool's error)."""


class RetailDatabase:
    """A shared, read-only base database plus this copy's own changes (`over`), the look-ups the
    tools share, and the dispatch of a tool call by name (`call`).

    An order or user is copied into `over` the first time a write tool touches it (copy on write),
    so a fresh database per task costs nothing and two databases are compared on the entries either
    of them touched (`touched`, `entry`); `db` is the merged view (τ²'s whole database).
    """

    def __init__(self, base: dict[str, Any]):
        self.base = base
        self.over: dict[str, dict[str, Any]] = {"users": {}, "orders": {}}

    @property
    def db(self) -> dict[str, Any]:
        return {
            "products": self.base["products"],
            **{c: {k: self.over[c].get(k, v) for k, v in self.base[c].items()} for c in ("users", "orders")},
        }

    def touched(self) -> set[tuple[str, str]]:
        return {(c, k) for c, d in self.over.items() for k in d}

    def entry(self, collection: str, key: str) -> Any:
        return self.over[collection].get(key, self.base[collection].get(key))

    def _get(self, collection: str, key: str, write: bool, missing: str) -> dict:
        if key in self.over[collection]:
            return self.over[collection][key]
        if key not in self.base[collection]:
            raise RetailError(missing)
        if not write:
            return self.base[collection][key]
        self.over[collection][key] = copy.deepcopy(self.base[collection][key])
        return self.over[collection][key]

    def _users(self):
        for uid, u in self.base["users"].items():
            yield uid, self.over["users"].get(uid, u)

    # -- look-ups (write=True: the caller changes the entry) ------------------------------------
    def _order(self, order_id: str, write: bool = False) -> dict:
        return self._get("orders", order_id, write, "Order not found")

    def _user(self, user_id: str, write: bool = False) -> dict:
        return self._get("users", user_id, write, "User not found")

    def _product(self, product_id: str) -> dict:
        if product_id not in self.base["products"]:
            raise RetailError("Product not found")
        return self.base["products"][product_id]

    def _variant(self, product_id: str, item_id: str) -> dict:
        product = self._product(product_id)
        if item_id not in product["variants"]:
            raise RetailError("Variant not found")
        return product["variants"][item_id]

    def _payment(self, user_id: str, pm_id: str, write: bool = False) -> dict:
        user = self._user(user_id, write)
        if pm_id not in user["payment_methods"]:
            raise RetailError("Payment method not found")
        return user["payment_methods"][pm_id]

    @staticmethod
    def _gift(pm: dict) -> bool:
        return pm.get("source") == "gift_card"

    @staticmethod
    def _check_counts(order: dict, item_ids: list[str], message: Callable[[str], str]) -> None:
        have = [it["item_id"] for it in order["items"]]
        for item_id in item_ids:
            if item_ids.count(item_id) > have.count(item_id):
                raise RetailError(message(item_id))

    # -- dispatch --------------------------------------------------------------------------------
    def call(self, name: str, args: dict[str, Any]) -> Any:
        if name not in SCHEMAS:
            raise RetailError(f"unknown tool {name!r}; available: {sorted(SCHEMAS)}")
        params = SCHEMAS[name]["parameters"]
        missing = [p for p in params["required"] if p not in args]
        extra = sorted(set(args) - set(params["properties"]))
        if missing or extra:
            raise RetailError(f"{name}: missing argument(s) {missing}, unknown argument(s) {extra}")
        for p, spec in params["properties"].items():
            want = list if spec["type"] == "array" else str
            if not isinstance(args[p], want):
                raise RetailError(f"{name}: argument {p!r} must be a {spec['type']}")
        out = getattr(self, name)(**args)
        return copy.deepcopy(out)


class RetailReads(RetailDatabase):
    """The tools that change nothing: arithmetic, the hand-over to a human, and the look-ups of users,
    orders, products and items (each result the entry itself; `call` returns a copy)."""

    # -- generic ---------------------------------------------------------------------------------
    def calculate(self, expression: str) -> str:
        if not all(ch in "0123456789+-*/(). " for ch in expression):
            raise RetailError("Invalid characters in expression")
        try:  # only digits, operators, parentheses and spaces reach eval, with no builtins
            return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))
        except Exception as e:
            raise RetailError(f"Invalid expression: {e}") from None

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    # -- reads -----------------------------------------------------------------------------------
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        for uid, u in self._users():
            if (
                u["name"]["first_name"].lower() == first_name.lower()
                and u["name"]["last_name"].lower() == last_name.lower()
                and u["address"]["zip"] == zip
            ):
                return uid
        raise RetailError("User not found")

    def find_user_id_by_email(self, email: str) -> str:
        for uid, u in self._users():
            if u["email"].lower() == email.lower():
                return uid
        raise RetailError("User not found")

    def get_order_details(self, order_id: str) -> dict:
        return self._order(order_id)

    def get_product_details(self, product_id: str) -> dict:
        return self._product(product_id)

    def get_item_details(self, item_id: str) -> dict:
        for p in self.base["products"].values():
            if item_id in p["variants"]:
                return p["variants"][item_id]
        raise RetailError("Item not found")

    def get_user_details(self, user_id: str) -> dict:
        return self._user(user_id)

    def list_all_product_types(self) -> str:
        return json.dumps(
            {p["name"]: p["product_id"] for p in self.base["products"].values()}, sort_keys=True
        )


class RetailWrites(RetailDatabase):
    """The tools that change an order or a user, each after τ²'s checks (a refusal raises
    `RetailError` before the database changes, except where τ² itself changes state first)."""

    def cancel_pending_order(self, order_id: str, reason: str) -> dict:
        order = self._order(order_id, write=True)
        if order["status"] != "pending":
            raise RetailError("Non-pending order cannot be cancelled")
        if reason not in ("no longer needed", "ordered by mistake"):
            raise RetailError("Invalid reason")
        refunds = []
        for pay in order["payment_history"]:
            refunds.append(
                {
                    "transaction_type": "refund",
                    "amount": pay["amount"],
                    "payment_method_id": pay["payment_method_id"],
                }
            )
            pm = self._payment(order["user_id"], pay["payment_method_id"], write=True)
            if self._gift(pm):  # a gift card is refunded at once
                pm["balance"] = round(pm["balance"] + pay["amount"], 2)
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        order["payment_history"].extend(refunds)
        return order

    def exchange_delivered_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> dict:
        order = self._order(order_id, write=True)
        if order["status"] != "delivered":
            raise RetailError("Non-delivered order cannot be exchanged")
        self._check_counts(order, item_ids, lambda i: f"Number of {i} not found.")
        if len(item_ids) != len(new_item_ids):
            raise RetailError("The number of items to be exchanged should match.")
        diff = 0.0
        for old, new in zip(item_ids, new_item_ids):
            item = next((it for it in order["items"] if it["item_id"] == old), None)
            if item is None:
                raise RetailError(f"Item {old} not found")
            variant = self._variant(item["product_id"], new)
            if not variant["available"]:
                raise RetailError(f"New item {new} not found or available")
            diff += variant["price"] - item["price"]
        diff = round(diff, 2)
        pm = self._payment(order["user_id"], payment_method_id)
        if self._gift(pm) and pm["balance"] < diff:
            raise RetailError("Insufficient gift card balance to pay for the price difference")
        order["status"] = "exchange requested"
        order["exchange_items"] = sorted(item_ids)
        order["exchange_new_items"] = sorted(new_item_ids)
        order["exchange_payment_method_id"] = payment_method_id
        order["exchange_price_difference"] = diff
        return order

    def modify_pending_order_address(
        self, order_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
    ) -> dict:
        order = self._order(order_id, write=True)
        if "pending" not in order["status"]:
            raise RetailError("Non-pending order cannot be modified")
        order["address"] = {
            "address1": address1,
            "address2": address2,
            "city": city,
            "country": country,
            "state": state,
            "zip": zip,
        }
        return order

    def modify_pending_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> dict:
        order = self._order(order_id, write=True)
        if order["status"] != "pending":
            raise RetailError("Non-pending order cannot be modified")
        self._check_counts(order, item_ids, lambda i: f"{i} not found")
        if len(item_ids) != len(new_item_ids):
            raise RetailError("The number of items to be exchanged should match")
        diff = 0.0
        variant = None
        for old, new in zip(item_ids, new_item_ids):
            if old == new:
                raise RetailError("The new item id should be different from the old item id")
            item = next((it for it in order["items"] if it["item_id"] == old), None)
            if item is None:
                raise RetailError(f"Item {old} not found")
            variant = self._variant(item["product_id"], new)
            if not variant["available"]:
                raise RetailError(f"New item {new} not found or available")
            diff += variant["price"] - item["price"]
        pm = self._payment(order["user_id"], payment_method_id, write=True)
        if self._gift(pm) and pm["balance"] < diff:
            raise RetailError("Insufficient gift card balance to pay for the new item")
        order["payment_history"].append(
            {
                "transaction_type": "payment" if diff > 0 else "refund",
                "amount": abs(diff),
                "payment_method_id": payment_method_id,
            }
        )
        if self._gift(pm):
            pm["balance"] = round(pm["balance"] - diff, 2)
        for old, new in zip(item_ids, new_item_ids):
            item = next((it for it in order["items"] if it["item_id"] == old), None)
            if item is None:
                raise RetailError(f"Item {old} not found")
            item["item_id"] = new
            item["price"] = variant["price"]  # τ²: the last new variant's price and options (kept)
            item["options"] = copy.deepcopy(variant["options"])
        order["status"] = "pending (item modified)"
        return order

    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> dict:
        order = self._order(order_id, write=True)
        if "pending" not in order["status"]:
            raise RetailError("Non-pending order cannot be modified")
        pm = self._payment(order["user_id"], payment_method_id, write=True)
        hist = order["payment_history"]
        if len(hist) != 1 or hist[0]["transaction_type"] != "payment":
            raise RetailError("There should be exactly one payment for a pending order")
        if hist[0]["payment_method_id"] == payment_method_id:
            raise RetailError("The new payment method should be different from the current one")
        amount = hist[0]["amount"]
        if self._gift(pm) and pm["balance"] < amount:
            raise RetailError("Insufficient gift card balance to pay for the order")
        old_id = hist[0]["payment_method_id"]
        hist.extend(
            [
                {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
                {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id},
            ]
        )
        if self._gift(pm):
            pm["balance"] = round(pm["balance"] - amount, 2)
        old = self._payment(order["user_id"], old_id, write=True)
        if self._gift(old):
            old["balance"] = round(old["balance"] + amount, 2)
        return order

    def modify_user_address(
        self, user_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
    ) -> dict:
        user = self._user(user_id, write=True)
        user["address"] = {
            "address1": address1,
            "address2": address2,
            "city": city,
            "country": country,
            "state": state,
            "zip": zip,
        }
        return user

    def return_delivered_order_items(
        self, order_id: str, item_ids: list[str], payment_method_id: str
    ) -> dict:
        order = self._order(order_id, write=True)
        if order["status"] != "delivered":
            raise RetailError("Non-delivered order cannot be returned")
        pm = self._payment(order["user_id"], payment_method_id)
        if not self._gift(pm) and payment_method_id != order["payment_history"][0]["payment_method_id"]:
            raise RetailError("Payment method should be the original payment method")
        self._check_counts(order, item_ids, lambda i: "Some item not found")
        order["status"] = "return requested"
        order["return_items"] = sorted(item_ids)
        order["return_payment_method_id"] = payment_method_id
        return order


class RetailTools(RetailReads, RetailWrites):
    """τ²-bench retail's 16 tools over one task's copy-on-write database: the look-ups
    (`RetailReads`) and the order- and user-changing tools (`RetailWrites`), called by name through
    `call` with the arguments `SCHEMAS` describes."""


def _s(desc: str) -> dict:
    return {"type": "string", "description": desc}


def _a(desc: str) -> dict:
    return {"type": "array", "items": {"type": "string"}, "description": desc}


_ORDER = _s("order id, with its leading '#', e.g. '#W0000000'")
_PM = _s("payment method id, e.g. 'gift_card_0000000' or 'credit_card_0000000'")
_ADDR = {k: _s(k) for k in ("address1", "address2", "city", "state", "country", "zip")}

# name -> (description, properties); every property is required (as in τ²'s tool signatures)
_TOOLS: dict[str, tuple[str, dict[str, dict]]] = {
    "calculate": (
        "Evaluate an arithmetic expression (numbers, + - * /, parentheses).",
        {"expression": _s("e.g. '2 + 2'")},
    ),
    "cancel_pending_order": (
        "Cancel a pending order after the user confirms; refunds the payments.",
        {"order_id": _ORDER, "reason": _s("'no longer needed' or 'ordered by mistake'")},
    ),
    "exchange_delivered_order_items": (
        "Exchange items of a delivered order for other items of the same product (once per order; "
        "confirm with the user first).",
        {
            "order_id": _ORDER,
            "item_ids": _a("item ids to exchange"),
            "new_item_ids": _a("new item ids, position by position"),
            "payment_method_id": _PM,
        },
    ),
    "find_user_id_by_name_zip": (
        "Find a user id by first name, last name and zip code.",
        {"first_name": _s("first name"), "last_name": _s("last name"), "zip": _s("zip code")},
    ),
    "find_user_id_by_email": ("Find a user id by email.", {"email": _s("email address")}),
    "get_order_details": ("Status and details of an order.", {"order_id": _ORDER}),
    "get_product_details": (
        "Inventory details of a product (not an item).",
        {"product_id": _s("product id")},
    ),
    "get_item_details": ("Inventory details of an item (a product variant).", {"item_id": _s("item id")}),
    "get_user_details": ("Details of a user, including their orders.", {"user_id": _s("user id")}),
    "list_all_product_types": ("Names and product ids of all product types.", {}),
    "modify_pending_order_address": (
        "Change the shipping address of a pending order (confirm first).",
        {"order_id": _ORDER, **_ADDR},
    ),
    "modify_pending_order_items": (
        "Swap items of a pending order for other items of the same product (once per order; confirm first).",
        {
            "order_id": _ORDER,
            "item_ids": _a("item ids to modify"),
            "new_item_ids": _a("new item ids, position by position"),
            "payment_method_id": _PM,
        },
    ),
    "modify_pending_order_payment": (
        "Change the payment method of a pending order (confirm first).",
        {"order_id": _ORDER, "payment_method_id": _PM},
    ),
    "modify_user_address": (
        "Change a user's default address (confirm first).",
        {"user_id": _s("user id"), **_ADDR},
    ),
    "return_delivered_order_items": (
        "Request a return of items of a delivered order, refunded to the original payment method "
        "or a gift card (confirm first).",
        {"order_id": _ORDER, "item_ids": _a("item ids to return"), "payment_method_id": _PM},
    ),
    "transfer_to_human_agents": (
        "Transfer the user to a human agent with a summary (only when asked, or when "
        "the policy and tools cannot solve the issue).",
        {"summary": _s("summary")},
    ),
}
SCHEMAS: dict[str, dict[str, Any]] = {
    name: {
        "name": name,
        "description": desc,
        "parameters": {"type": "object", "properties": props, "required": list(props)},
    }
    for name, (desc, props) in _TOOLS.items()
}
