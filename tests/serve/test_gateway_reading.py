"""`pulse serve` reading plain statements, driven by the official MCP client over stdio in front of a
small upstream with enumerated arguments (fixtures/preferences_server.py).

Each case: the user's sentence goes to `pulse_remember`, then calls that contradict or conform to it.
Right behaviour: a call contradicting the user's own preference (first person, paraphrased, negated,
one-off for this task, revised) is held; a conforming call passes; a habit or another person's
preference never holds anything; a conditional preference holds only where its condition applies.
Cases that touch different arguments share one gateway process (a batch), so no case sees another's
memory. The target: at least 90 % of the cases behave right (the reader is not perfect; the misses
are printed).
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
FIXTURE = REPO / "tests" / "serve" / "fixtures" / "preferences_server.py"


def fly(**a):
    return ("book_flight", {"destination": "Lisbon", **a})


def refund(v):
    return ("refund_order", {"order_id": "#1", "payment_method": v})


def email(**a):
    return ("send_email", {"to": "sam@example.org", "body": "Hello", **a})


def food(**a):
    return ("order_food", {"restaurant": "Nopa", **a})


def meet(**a):
    return ("schedule_meeting", {"title": "Sync", **a})


HELD, PASSED = True, False
# (statement, argument, [(call, held?)], later statement or "")
CASES = [
    # first person, values in words the tools never use
    ("I like a seat by the corridor.", "seat", [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)]),
    (
        "Put me by the window whenever I fly.",
        "seat",
        [(fly(seat="aisle"), HELD), (fly(seat="window"), PASSED)],
    ),
    (
        "Please always book business class for me.",
        "cabin",
        [(fly(cabin="economy"), HELD), (fly(cabin="business"), PASSED)],
    ),
    ("I'm vegetarian.", "meal", [(fly(meal="standard"), HELD), (fly(meal="vegetarian"), PASSED)]),
    ("Keep my emails formal please.", "tone", [(email(tone="casual"), HELD), (email(tone="formal"), PASSED)]),
    (
        "Emails from me should be short and to the point.",
        "length",
        [(email(length="detailed"), HELD), (email(length="short"), PASSED)],
    ),
    (
        "I like my food really spicy.",
        "spice_level",
        [(food(spice_level="mild"), HELD), (food(spice_level="hot"), PASSED)],
    ),
    (
        "Leave deliveries in the lobby, always.",
        "delivery",
        [(food(delivery="door"), HELD), (food(delivery="lobby"), PASSED)],
    ),
    (
        "I prefer video calls for meetings.",
        "location",
        [(meet(location="in_person"), HELD), (meet(location="video"), PASSED)],
    ),
    (
        "Mornings are best for my meetings.",
        "time_of_day",
        [(meet(time_of_day="afternoon"), HELD), (meet(time_of_day="morning"), PASSED)],
    ),
    (
        "Refund everything to PayPal from now on.",
        "payment_method",
        [(refund("credit_card"), HELD), (refund("paypal"), PASSED)],
    ),
    (
        "I'd rather get my money back by bank transfer.",
        "payment_method",
        [(refund("gift_card"), HELD), (refund("bank_transfer"), PASSED)],
    ),
    ("My go-to is an aisle seat.", "seat", [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)]),
    ("Seat me near the window, I like looking out.", "seat", [(fly(seat="aisle"), HELD)]),
    ("Always send a detailed write-up.", "length", [(email(length="short"), HELD)]),
    ("Keep it casual when you email people for me.", "tone", [(email(tone="formal"), HELD)]),
    ("I'd like my meetings over the phone.", "location", [(meet(location="video"), HELD)]),
    ("Medium spice is perfect for me.", "spice_level", [(food(spice_level="hot"), HELD)]),
    ("Have them bring it right to my door.", "delivery", [(food(delivery="lobby"), HELD)]),
    ("Evenings work best for my calls.", "time_of_day", [(meet(time_of_day="morning"), HELD)]),
    (
        "I want the premium economy cabin on every flight.",
        "cabin",
        [(fly(cabin="economy"), HELD), (fly(cabin="premium_economy"), PASSED)],
    ),
    ("My meals must be kosher.", "meal", [(fly(meal="standard"), HELD)]),
    ("Book aisle seats for me from now on.", "seat", [(fly(seat="window"), HELD)]),
    # the tools' own words
    ("My preferred cabin is economy.", "cabin", [(fly(cabin="business"), HELD)]),
    ("Use a friendly tone in my emails.", "tone", [(email(tone="formal"), HELD)]),
    ("Schedule my meetings in the afternoon.", "time_of_day", [(meet(time_of_day="morning"), HELD)]),
    # habits describe, they never hold
    ("I usually end up in economy, mostly out of habit.", "cabin", [(fly(cabin="business"), PASSED)]),
    ("I tend to order mild food.", "spice_level", [(food(spice_level="hot"), PASSED)]),
    ("Most of the time I pick up the food myself.", "delivery", [(food(delivery="door"), PASSED)]),
    ("Out of habit I sit in the middle seat.", "seat", [(fly(seat="window"), PASSED)]),
    # negations: anything but
    (
        "Never refund anything to a gift card.",
        "payment_method",
        [(refund("gift_card"), HELD), (refund("paypal"), PASSED)],
    ),
    (
        "No phone calls for meetings, please.",
        "location",
        [(meet(location="phone"), HELD), (meet(location="video"), PASSED)],
    ),
    ("Don't ever book me a middle seat.", "seat", [(fly(seat="middle"), HELD), (fly(seat="aisle"), PASSED)]),
    (
        "Avoid evening meetings.",
        "time_of_day",
        [(meet(time_of_day="evening"), HELD), (meet(time_of_day="morning"), PASSED)],
    ),
    (
        "Anything but economy, please.",
        "cabin",
        [(fly(cabin="economy"), HELD), (fly(cabin="business"), PASSED)],
    ),
    (
        "Always refund to my credit card, never to a gift card.",
        "payment_method",
        [(refund("gift_card"), HELD), (refund("credit_card"), PASSED)],
    ),
    # conditions: held only where they apply
    (
        "For meetings with clients, always meet in person.",
        "location",
        [
            (meet(title="Client review", location="video"), HELD),
            (meet(title="Team sync", location="video"), PASSED),
        ],
    ),
    (
        "For client dinners I want the food mild.",
        "spice_level",
        [
            (food(restaurant="Client dinner at Nopa", spice_level="hot"), HELD),
            (food(restaurant="Lunch at Zuni", spice_level="hot"), PASSED),
        ],
    ),
    ("On weekends, leave my food at the door.", "delivery", [(food(delivery="lobby"), PASSED)]),
    ("When I travel for work I want an aisle seat.", "seat", [(fly(seat="window"), PASSED)]),
    (
        "On long-haul flights I want business class.",
        "cabin",
        [
            (fly(destination="Tokyo, long-haul", cabin="economy"), HELD),
            (fly(destination="Porto", cabin="economy"), PASSED),
        ],
    ),
    # someone else's preference is never the user's
    ("My colleague Priya always wants a window seat.", "seat", [(fly(seat="aisle"), PASSED)]),
    ("Tom prefers gift cards for his refunds.", "payment_method", [(refund("credit_card"), PASSED)]),
    ("My wife likes her food mild.", "spice_level", [(food(spice_level="hot"), PASSED)]),
    (
        "Our design team decided all reviews happen by video.",
        "location",
        [(meet(location="in_person"), PASSED)],
    ),
    ("My boss hates long emails.", "length", [(email(length="detailed"), PASSED)]),
    (
        "Priya said she wants her meetings in the morning.",
        "time_of_day",
        [(meet(time_of_day="evening"), PASSED)],
    ),
    (
        "I'm fine with any tone, but my manager Ana insists on formal emails.",
        "tone",
        [(email(tone="casual"), PASSED)],
    ),
    # one-off for this task: holds in this session
    (
        "Just this time, book me a window seat.",
        "seat",
        [(fly(seat="aisle"), HELD), (fly(seat="window"), PASSED)],
    ),
    ("For this order, leave it at the door.", "delivery", [(food(delivery="lobby"), HELD)]),
    # withdrawals and revisions
    (
        "I no longer want window seats; from now on it's aisle.",
        "seat",
        [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    (
        "I switched from PayPal to bank transfer for refunds.",
        "payment_method",
        [(refund("paypal"), HELD), (refund("bank_transfer"), PASSED)],
    ),
    (
        "I used to like casual emails but now I want them formal.",
        "tone",
        [(email(tone="casual"), HELD), (email(tone="formal"), PASSED)],
    ),
    (
        "Change of plan: video meetings from now on, not in person.",
        "location",
        [(meet(location="in_person"), HELD), (meet(location="video"), PASSED)],
    ),
]

# Written on 2026-12-05 in words the cases above do not use, and first run against the gateway as it
# was then (reader v10): 22 of 33 behaved right. Reader v11 and the session one-offs were made while
# looking at these misses, so they are development phrasings too (results/README.md, "Natural
# statements").
NEW_CASES = [
    (
        "Aisle, always. I need to stretch my legs.",
        "seat",
        [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    (
        "I get claustrophobic by the window, so keep me off it.",
        "seat",
        [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    (
        "Whatever you do, don't stick me in the middle.",
        "seat",
        [(fly(seat="middle"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    (
        "i only fly business these days",
        "cabin",
        [(fly(cabin="economy"), HELD), (fly(cabin="business"), PASSED)],
    ),
    ("Economy is fine for me, I'm not fussy.", "cabin", [(fly(cabin="business"), HELD)]),
    ("I don't eat meat.", "meal", [(fly(meal="standard"), HELD), (fly(meal="vegetarian"), PASSED)]),
    (
        "No animal products at all for me, I'm vegan.",
        "meal",
        [(fly(meal="vegetarian"), HELD), (fly(meal="vegan"), PASSED)],
    ),
    (
        "Please keep my emails professional.",
        "tone",
        [(email(tone="casual"), HELD), (email(tone="formal"), PASSED)],
    ),
    ("Keep emails brief.", "length", [(email(length="detailed"), HELD), (email(length="short"), PASSED)]),
    (
        "When I write to my team, keep it relaxed.",
        "tone",
        [(email(tone="formal", to="team@example.org"), PASSED)],
    ),
    (
        "Mild food only, I can't handle heat.",
        "spice_level",
        [(food(spice_level="hot"), HELD), (food(spice_level="mild"), PASSED)],
    ),
    ("Nothing too spicy for me please.", "spice_level", [(food(spice_level="hot"), HELD)]),
    (
        "I'll collect my orders myself.",
        "delivery",
        [(food(delivery="door"), HELD), (food(delivery="pickup"), PASSED)],
    ),
    (
        "Drop the food off at the front desk in the lobby.",
        "delivery",
        [(food(delivery="door"), HELD), (food(delivery="lobby"), PASSED)],
    ),
    (
        "I'm done with video calls; meet in person from now on.",
        "location",
        [(meet(location="video"), HELD), (meet(location="in_person"), PASSED)],
    ),
    (
        "Phone is easiest for me for meetings.",
        "location",
        [(meet(location="video"), HELD), (meet(location="phone"), PASSED)],
    ),
    (
        "I'm useless before lunch, so afternoons please.",
        "time_of_day",
        [(meet(time_of_day="morning"), HELD), (meet(time_of_day="afternoon"), PASSED)],
    ),
    ("No meetings after 5pm.", "time_of_day", [(meet(time_of_day="evening"), HELD)]),
    (
        "Send my refunds back to PayPal.",
        "payment_method",
        [(refund("credit_card"), HELD), (refund("paypal"), PASSED)],
    ),
    (
        "I never want store gift cards as refunds.",
        "payment_method",
        [(refund("gift_card"), HELD), (refund("credit_card"), PASSED)],
    ),
    (
        "Put refunds back on my card.",
        "payment_method",
        [(refund("gift_card"), HELD), (refund("credit_card"), PASSED)],
    ),
    # other people's preferences and habits never hold
    ("My husband likes the window seat.", "seat", [(fly(seat="aisle"), PASSED)]),
    ("Jenna from accounting wants all emails formal.", "tone", [(email(tone="casual"), PASSED)]),
    ("The kids like their food mild.", "spice_level", [(food(spice_level="hot"), PASSED)]),
    ("I generally end up with the aisle.", "seat", [(fly(seat="window"), PASSED)]),
    ("Usually I eat vegetarian, but it's not a rule.", "meal", [(fly(meal="standard"), PASSED)]),
    # conditions
    (
        "For work trips, economy; for holidays I splurge on business.",
        "cabin",
        [(fly(destination="Work trip to Berlin", cabin="business"), HELD)],
    ),
    (
        "If it's a client meeting, make it in person.",
        "location",
        [
            (meet(title="Client kickoff", location="phone"), HELD),
            (meet(title="1:1", location="phone"), PASSED),
        ],
    ),
    # one-offs
    ("Only for today's lunch: pickup, I'll grab it.", "delivery", [(food(delivery="door"), HELD)]),
    (
        "This time, book the middle seat, it's all that's left.",
        "seat",
        [(fly(seat="aisle"), HELD), (fly(seat="middle"), PASSED)],
    ),
    # revisions
    (
        "Scratch what I said about the window: aisle from now on.",
        "seat",
        [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    (
        "I've gone off spicy food, medium is my limit now.",
        "spice_level",
        [(food(spice_level="hot"), HELD), (food(spice_level="medium"), PASSED)],
    ),
    (
        "Forget PayPal, refunds go to my bank account now.",
        "payment_method",
        [(refund("paypal"), HELD), (refund("bank_transfer"), PASSED)],
    ),
]


# Written on 2026-12-05 (a later session) to try the grammar of refusals, branches and speakers: run
# against the gateway as it was (reader v11), 2 of 19 behaved right. Reader v12, avoided values that
# accumulate and excluding conditions were made while looking at them: development phrasings too.
# Still missed: an "otherwise" branch said in the same session as the call (the statement's own words
# count as values the user stated in this task, and its last value wins).
V12_CASES = [
    (
        "I'm happy with video or phone.",
        "location",
        [
            (meet(location="video"), PASSED),
            (meet(location="phone"), PASSED),
            (meet(location="in_person"), HELD),
        ],
    ),
    (
        "My wife always wants the window seat, I want the aisle.",
        "seat",
        [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    ("I don't mind the middle seat, honestly.", "seat", [(fly(seat="middle"), PASSED)]),
    (
        "Neither the middle nor the window, please.",
        "seat",
        [(fly(seat="middle"), HELD), (fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    (
        "Refunds: neither PayPal nor gift card.",
        "payment_method",
        [(refund("paypal"), HELD), (refund("gift_card"), HELD), (refund("credit_card"), PASSED)],
    ),
    (
        "I'm fine with any seat as long as it isn't the middle.",
        "seat",
        [(fly(seat="middle"), HELD), (fly(seat="window"), PASSED)],
    ),
    (
        "Unless it's a client, keep my emails casual.",
        "tone",
        [
            (email(tone="formal", to="team@example.org", body="Hi team"), HELD),
            (email(tone="formal", to="buyer@client.com", body="Dear client"), PASSED),
        ],
    ),
    (
        "Keep emails short unless it's a report.",
        "length",
        [
            (email(length="detailed", body="Quick question"), HELD),
            (email(length="detailed", body="The quarterly report is attached"), PASSED),
        ],
    ),
    (
        "If it's a client meeting, in person; otherwise video.",
        "location",
        [
            (meet(title="Client kickoff", location="video"), HELD),
            (meet(title="Team sync", location="in_person"), HELD),
            (meet(title="Team sync", location="video"), PASSED),
        ],
    ),
    (
        "Afternoons work for me, mornings not so much.",
        "time_of_day",
        [(meet(time_of_day="morning"), HELD), (meet(time_of_day="afternoon"), PASSED)],
    ),
    (
        "Never refund to PayPal or a gift card.",
        "payment_method",
        [(refund("paypal"), HELD), (refund("gift_card"), HELD), (refund("credit_card"), PASSED)],
    ),
    (
        "I hate the middle seat and I'm not keen on the window either.",
        "seat",
        [(fly(seat="window"), HELD), (fly(seat="middle"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    (
        "My manager prefers morning meetings, I'm more of an afternoon person.",
        "time_of_day",
        [(meet(time_of_day="morning"), HELD), (meet(time_of_day="afternoon"), PASSED)],
    ),
    (
        "Book vegan meals for me, my partner eats kosher.",
        "meal",
        [(fly(meal="kosher"), HELD), (fly(meal="vegan"), PASSED)],
    ),
    (
        "Window or aisle, I don't care, just not the middle.",
        "seat",
        [(fly(seat="middle"), HELD), (fly(seat="window"), PASSED), (fly(seat="aisle"), PASSED)],
    ),
    (
        "Premium economy is the sweet spot for me.",
        "cabin",
        [(fly(cabin="business"), HELD), (fly(cabin="premium_economy"), PASSED)],
    ),
    ("I don't mind economy.", "cabin", [(fly(cabin="economy"), PASSED)]),
    (
        "Mild or medium is fine, just never hot.",
        "spice_level",
        [(food(spice_level="hot"), HELD), (food(spice_level="medium"), PASSED)],
    ),
    (
        "Refunds to PayPal for anything under $50, otherwise bank transfer.",
        "payment_method",
        [(refund("credit_card"), HELD)],
    ),
]


def batches(cases):
    """Cases in groups that touch different arguments (one gateway process each)."""
    out: list[list] = []
    for case in cases:
        for b in out:
            if all(c[1] != case[1] for c in b):
                b.append(case)
                break
        else:
            out.append([case])
    return out


def gateway(mem: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=PY,
        cwd=str(REPO),
        args=[
            "-m",
            "pulse.cli.serve",
            "user_id=ada",
            f"memory.root={mem}",
            f"+upstreams.prefs.command={PY}",
            f"+upstreams.prefs.args=[{FIXTURE}]",
        ],
    )


async def run_batch(mem: Path, batch) -> list[tuple[str, list[str]]]:
    """Per case: the calls that did not behave as expected (empty = right). Each case is its own
    session (`_meta["pulse/session"]`): one memory per batch, one task's words per case."""
    out = []
    async with Client(gateway(mem), cache=None) as c:
        for i, (statement, _, calls) in enumerate(batch):
            meta = {"pulse/session": f"case-{i}"}
            said = await c.call_tool("pulse_remember", {"statement": statement}, meta=meta)
            assert not said.is_error, said.content[0].text
            wrong = []
            for (tool, args), want_held in calls:
                res = await c.call_tool(tool, args, meta=meta)
                held = res.is_error and res.content[0].text.startswith("NOT EXECUTED")
                if held != want_held:
                    wrong.append(f"{tool}{args}: {'held' if held else 'passed'}")
            out.append((statement, wrong))
    return out


# Written on 2026-12-05 (a fourth session) as a new user would type them, 55 sentences read against
# this schema first (reader v13 read 36 of them right); the gateway cases below are the ones with a
# call to hold or pass. Reader v14 was made while looking at the misses: development phrasings too.
V14_CASES = [
    (
        "Aisle for me, always — I've got long legs.",
        "seat",
        [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    (
        "I can't stand being stuck by the window.",
        "seat",
        [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)],
    ),
    ("Whatever you do, no middle seat.", "seat", [(fly(seat="middle"), HELD), (fly(seat="aisle"), PASSED)]),
    ("Economy's fine, I'm not fussy.", "cabin", [(fly(cabin="economy"), PASSED)]),
    (
        "My boss flies business; I'm happy in economy.",
        "cabin",
        [(fly(cabin="business"), HELD), (fly(cabin="economy"), PASSED)],
    ),
    ("I prefer the aisle to the window.", "seat", [(fly(seat="window"), HELD), (fly(seat="aisle"), PASSED)]),
    (
        "Gift cards are useless to me.",
        "payment_method",
        [(refund("gift_card"), HELD), (refund("paypal"), PASSED)],
    ),
    (
        "Put the money back on my Visa.",
        "payment_method",
        [(refund("paypal"), HELD), (refund("credit_card"), PASSED)],
    ),
    (
        "Keep my emails short and sweet.",
        "length",
        [(email(length="detailed"), HELD), (email(length="short"), PASSED)],
    ),
    ("Write to clients formally.", "tone", [(email(tone="casual"), HELD), (email(tone="formal"), PASSED)]),
    (
        "I like it hot, really hot.",
        "spice_level",
        [(food(spice_level="mild"), HELD), (food(spice_level="hot"), PASSED)],
    ),
    ("Leave the food in the lobby, the buzzer doesn't work.", "delivery", [(food(delivery="door"), HELD)]),
    (
        "Bring it up to my door.",
        "delivery",
        [(food(delivery="lobby"), HELD), (food(delivery="door"), PASSED)],
    ),
    (
        "No evening meetings, I have kids.",
        "time_of_day",
        [(meet(time_of_day="evening"), HELD), (meet(time_of_day="morning"), PASSED)],
    ),
    ("My assistant prefers afternoons.", "time_of_day", [(meet(time_of_day="morning"), PASSED)]),
    (
        "Just do it over video.",
        "location",
        [(meet(location="phone"), HELD), (meet(location="video"), PASSED)],
    ),
    (
        "I prefer video calls to meeting in person.",
        "location",
        [(meet(location="in_person"), HELD), (meet(location="video"), PASSED)],
    ),
    ("My son hates spicy food.", "spice_level", [(food(spice_level="mild"), PASSED)]),
    ("Never ever book me a middle seat!!!", "seat", [(fly(seat="middle"), HELD)]),
    ("i hate video calls", "location", [(meet(location="video"), HELD)]),
    (
        "Business class is a waste of money.",
        "cabin",
        [(fly(cabin="business"), HELD), (fly(cabin="economy"), PASSED)],
    ),
    ("Afternoons work best for me.", "time_of_day", [(meet(time_of_day="morning"), HELD)]),
]


@pytest.mark.e2e
def test_natural_statements_hold_what_they_should_over_stdio(tmp_path):
    assert len(CASES) >= 50 and len(NEW_CASES) >= 30 and len(V12_CASES) >= 19 and len(V14_CASES) >= 20
    results = []
    for i, batch in enumerate(batches(CASES + NEW_CASES + V12_CASES + V14_CASES)):
        results += anyio.run(run_batch, tmp_path / f"mem{i}", batch)
    misses = [(s, w) for s, w in results if w]
    for s, w in misses:
        print(f"MISS {s!r}: {'; '.join(w)}")
    right = len(results) - len(misses)
    assert right / len(results) >= 0.9, f"{right}/{len(results)} right"


def test_remember_answers_with_what_it_understood(tmp_path):
    async def go():
        async with Client(gateway(tmp_path / "m"), cache=None) as c:
            return await c.call_tool(
                "pulse_remember", {"statement": "My colleague Priya always wants a window seat."}
            )

    res = anyio.run(go)
    text = res.content[0].text
    assert "Priya prefers seat = window" in text and "not binding" in text
    (u,) = res.structured_content["understood"]
    assert (u["holder"], u["argument"], u["value"], u["binds"]) == ("person:Priya", "seat", "window", False)


def test_a_huge_statement_is_refused_with_a_clear_error(tmp_path):
    async def go():
        async with Client(gateway(tmp_path / "m"), cache=None) as c:
            return await c.call_tool("pulse_remember", {"statement": "aisle " * 2000})

    res = anyio.run(go)
    assert res.is_error and "at most 4,000" in res.content[0].text


def test_a_one_off_holds_its_own_session_only(tmp_path):
    """ "Just this time, ..." is this session's task's: it holds this session's contradicting call, is
    answered as kept for this session only, is not listed as long-term memory, and another session (a
    later task) never sees it."""

    async def go():
        async with Client(gateway(tmp_path / "m"), cache=None) as c:
            first, later = {"pulse/session": "trip-1"}, {"pulse/session": "trip-2"}
            said = await c.call_tool(
                "pulse_remember", {"statement": "Just this time, book me a window seat."}, meta=first
            )
            held = await c.call_tool(*fly(seat="aisle"), meta=first)
            passed = await c.call_tool(*fly(seat="window"), meta=first)
            listed = await c.call_tool("pulse_memories", {}, meta=first)
            elsewhere = await c.call_tool(*fly(seat="aisle"), meta=later)
            return said, held, passed, listed, elsewhere

    said, held, passed, listed, elsewhere = anyio.run(go)
    assert "Kept for this session only" in said.content[0].text and not said.structured_content["stored"]
    (u,) = said.structured_content["understood"]
    assert (u["argument"], u["value"], u["binds"], u["this_session_only"]) == ("seat", "window", True, True)
    assert held.is_error and held.content[0].text.startswith("NOT EXECUTED")
    assert not passed.is_error
    assert listed.structured_content["memories"] == []
    assert not elsewhere.is_error  # another session's task: the one-off is not its


def test_a_standing_preference_still_holds_after_a_one_off_elsewhere(tmp_path):
    """A lasting preference is every session's; a one-off in one session changes nothing for another."""

    async def go():
        async with Client(gateway(tmp_path / "m"), cache=None) as c:
            a, b = {"pulse/session": "a"}, {"pulse/session": "b"}
            await c.call_tool("pulse_remember", {"statement": "I always want an aisle seat."}, meta=a)
            await c.call_tool("pulse_remember", {"statement": "For this trip only, window please."}, meta=a)
            in_a = await c.call_tool(*fly(seat="aisle"), meta=a)
            in_b = await c.call_tool(*fly(seat="window"), meta=b)
            return in_a, in_b

    in_a, in_b = anyio.run(go)
    assert in_a.is_error  # session a's one-off (window) holds its aisle call
    assert in_b.is_error and in_b.content[0].text.startswith("NOT EXECUTED")  # b: the lasting aisle holds
