"""The linguistic half of reading: where a statement's clauses are, and for each clause who speaks
of whom, what kind of statement it is, when it applies, and whether it withdraws, revises or negates.

Everything here works on the words alone (no schema); `offline.py` binds the clauses to arguments.
The cues are grammatical (subjects, modal and habitual verbs, subordinators, negators), not a
benchmark's vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from pulse.reading.lexicon import content_words

# titles before a name ("Dr. Osei") and abbreviations ("etc.", "approx."): their period ends no sentence
_TITLES_DOT = ("Dr", "Mr", "Ms", "Mrs", "Prof", "St")
_ABBREVIATIONS_DOT = tuple("etc vs no ca cf esp min max sec fig incl dept approx".split())
_NOT_AFTER = "".join(rf"(?<!\b{w}\.)" for w in _TITLES_DOT)
_NOT_AFTER_LOWER = "".join(
    rf"(?<!\b{w}\.)" for w in (*_TITLES_DOT, *(t.lower() for t in _TITLES_DOT), *_ABBREVIATIONS_DOT)
)
# sentences end at . ! ? or a line break; ";" and ":" after an intro ("Update on the seat:") too
_SENTENCE = re.compile(
    # not after a title ("My tutor, Dr. Osei, prefers ...")
    rf"(?<=[.!?]){_NOT_AFTER}\s+(?=[A-Z0-9\"'(])"
    # typed in lower case, as in a chat ("get me a seat by the corridor. i'm up and down all flight"),
    # unless the period ends an abbreviation ("at 7 a.m. on weekdays", "e.g. the", "etc. and") or an ellipsis
    rf"|(?<=[.!?])(?<!\.\.\.)(?<!\b[a-zA-Z]\.){_NOT_AFTER_LOWER}\s+(?=[a-z])"
    r"|\n+|;\s+"
)
# clauses inside a sentence: a contrast or a new subject after "and"
_CLAUSE = re.compile(
    r"(?<![Aa]nything)(?<![Nn]othing)(?<![Aa]ll)(?<![Ee]verything),?\s+(?:but|whereas|although"
    r"|though)\s+(?=\S)"
    # "while" contrasts after a comma ("I like aisle, while Priya ..."); without one it says when
    # ("keep it on eco while we're away")
    r"|,\s+while\s+(?=\S)"
    # "Used to love the window, now I want the aisle": the change of mind is a clause of its own
    r"|,\s+(?=(?i:now\s+(?:i|we|it|my|our|the))\b)"
    # "PayPal for anything under $50, otherwise bank transfer": the other branch of the condition
    r"|,\s+(?=(?i:otherwise|or else)\b)"
    r"|,\s+and\s+(?=(?:[Ii]|we|my|he|she|they|[A-Z][a-z]+)\b)"
    # "My coach wants high intensity, I'd rather keep it moderate": the speaker's own wish after a comma
    r"|,\s+(?=(?i:i|we)(?:'d|\s+would)\s+(?:rather|prefer|like)\b)"
    r"|\s+-\s+|\s+—\s+",
)
# a title before a name ("Dr. Osei", "Grandma Rosa", "Uncle Tom")
_TITLE = r"(?:(?:Dr|Prof|Mr|Mrs|Ms|Mx|Miss|Grandma|Grandpa|Granny|Nana|Aunt|Auntie|Uncle|Cousin)\.?\s+)?"
_RELATIONS = (
    "colleague|coworker|co-worker|boss|manager|wife|husband|partner|friend|sister|brother|mom|mum|dad|"
    "mother|father|son|daughter|kid|kids|assistant|teammate|client|girlfriend|boyfriend|roommate|"
    "flatmate|supervisor|advisor|cofounder|co-founder|intern|director|team lead|direct report|spouse|"
    # people by their role towards the speaker
    "coach|trainer|doctor|dentist|physio|physiotherapist|therapist|dietitian|nutritionist|nurse|teacher|"
    "tutor|mentor|adviser|editor|co-author|coauthor|landlord|landlady|neighbour|neighbor|accountant|"
    "lawyer|agent|housemate|classmate|aunt|uncle|cousin|niece|nephew|grandma|grandpa|grandmother|"
    "grandfather|fiance|fiancee|nanny|secretary|colleagues|coworkers|parents|"
    # roles at work ("our tech lead", "my PM")
    "lead|pm|ceo|cto|cfo|coo|vp|chair|captain|maintainer|reviewer|admin|product owner"
)
_RELATION = re.compile(
    rf"\b(?:my|our|the)\s+(?:\w+\s+)?(?P<rel>{_RELATIONS})\b(?:,)?"
    rf"(?:\s+(?P<name>(?-i:{_TITLE}[A-Z][a-z]+)))?",
    re.I,
)
_PERSON_VERB = (
    r"(?:(?:always|usually|really|also|only|never|normally|typically|often|generally|still)?\s*"
    r"(?:prefers|likes|loves|wants|needs|hates|dislikes|insists|says|said|asked|asks|told|tells|"
    r"uses|books|goes|gets|picks|orders|can't|cannot|won't|doesn't|does not|is|has|mentioned|"
    r"would like|'d like|would rather|'s|will|eats|drinks|expects|requires|demands|wanted|needed|keeps|"
    r"runs|swears|thinks|thought|reckons|believes|feels|suggests|suggested|recommends|recommended|argues|"
    r"insisted"
    # what someone does over and over, in the present ("My boss flies business"; verbs that are seldom
    # plural nouns: "Uber rides", "hotel stays" are things)
    r"|flies|travels|drives|wears|sits|sleeps|listens|buys|swims)"
    # any verb of what someone does over and over, after its adverb ("My boss Raj only sits in a box")
    r"|(?:always|usually|only|never|normally|typically|generally)\s+"
    r"(?!(?:this|his|hers|its|was|as|us|less|unless|yes|plus)\b)[a-z]+s)\b"
)
# "Keiko wants", "Keiko, our CFO, wants", "Olu in accounting needs", "Elif, who handles our grants, insists"
_NAMED = re.compile(
    rf"\b(?P<name>{_TITLE}[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?:,\s+[^,]{{2,60}},|\s+(?:in|from|at|of)\s+"
    rf"(?:the\s+)?[a-z]+)?\s+{_PERSON_VERB}"
)
# a department or other group named as the subject ("Legal wants ...", "Procurement decided ...")
_GROUP_SUBJECT = re.compile(
    r"(?:^|[.:;!?]\s+)(?P<team>engineering|finance|legal|procurement|marketing|sales|hr|accounting|accounts|"
    r"security|operations|ops|design|product|support|research|management|compliance|facilities|it)\s+"
    r"(?:has\s+|have\s+)?(?:decided|agreed|settled|wants|says|said|requires|insists|asked|asks|needs|"
    r"mandated|ruled)\b",
    re.I,
)
_POSSESSIVE = re.compile(rf"\b(?:for\s+)?(?P<name>{_TITLE}[A-Z][a-z]+)'s\s+(?!own\b)(?P<what>\w+)")
_THIRD = re.compile(r"^\s*(?:he|she|they)\b", re.I)
_INTRO = re.compile(rf"\b(?:I'm|I am|this is|it's)\s+(?P<name>{_TITLE}[A-Z][a-z]+)\s*(?:[.,!]|here\b)")
_TEAM = re.compile(
    r"\b(?:the|our|my)\s+(?P<group>household|department|consortium|committee|family|lab|board|council)\b"
    r"|\b(?:the|our|my|their)?\s*(?P<team>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s+(?:team|department|group"
    r"|dept|squad|org|committee|club|household|consortium|management|lab|board|council)\b",
    re.I,
)
_DECISION = re.compile(
    r"\b(?:we|the team|they|everyone|management|leadership)\s+(?:have\s+|has\s+)?(?:decided|agreed|settled"
    r"|chose|chosen|voted|"
    r"signed off|standardi[sz]ed|went with|are going with|will go with|'ll go with)\b"
    r"|\b(?:decided|agreed|settled) (?:on|to|that)\b|\blet'?s\s+(?:go with|settle|stick with|standardi[sz]e"
    r"|use|agree)\b|\b(?:team|project|group) decision\b|\bdecision (?:recorded|taken|made)\b"
    r"|\bwe(?:'re| are)\s+(?:going with|standardi[sz]ing)\b",
    re.I,
)
_PROJECT = re.compile(
    r"\b(?:for|in|on)\s+(?:the\s+)?(?:project\s+)?(?P<name>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)(?:\s+project)?\b"
    r"|\bproject\s+(?P<name2>[A-Z][\w-]+)"
)
NOT_NAMES = frozenset(
    "I I'm Im The A An For When If On In At By With Please And But Or So Just Also My Our We You It "
    "This That These Those Every Each Any All No Not Never Always Usually Normally Generally Quick Note "
    "Change Update Heads Context Same As Go Use Make Book Send Pay Ship Put Keep Let Let's Thanks Hi Hey "
    "Ok Okay Oh Actually Remember From Going One Whenever Unless Monday Tuesday Wednesday Thursday "
    "Friday Saturday Sunday January February March April May June July August September October "
    "November December Visa Mastercard Amex Slack Zoom Teams Gmail Outlook Python Java Github GitHub "
    "Friday's Don't Do Can Could Would Should Will Out Most Mostly Some Sometimes Often Honestly "
    "Basically Also Plus Again Then Today Tomorrow Tonight Next Last Mr Mrs Ms Dr Email Emails Prof "
    "Nobody Everyone Everybody Someone Somebody Anyone Anybody None Noone "
    # pronouns opening a sentence ("He doesn't mind"): a person, but not a name (see `_THIRD`)
    "He She They Him Her Them His Hers Their Its Who There Here".split()
)

_HABIT = re.compile(
    r"\b(?:usually|normally|typically|generally|tend(?:s)? to|tended to|most of the time|more often than not|"
    r"out of habit|by habit|habitually|end up|ended up|often|mostly|as a rule of thumb|"
    r"nine times out of ten|almost always|as usual|routinely|my usual|most of my|these days"
    # the habitual aspect of "keep": "Jo keeps turning it up", "I kept leaving it on"
    r"|keeps? \w+ing|kept \w+ing)\b",
    re.I,
)
_DESIRE = re.compile(
    r"\b(?:prefer|prefers|preferred|like|likes|love|loves|want|wants|wish|need|needs|hate|hates|dislike|"
    r"dislikes|avoid|can't stand|cannot stand|please|make sure|insist|always|never|should|must|"
    r"i'd rather|i would rather|rather have|my (?:favou?rite|choice|pick|go-to|preference)|"
    r"standing (?:choice|order|rule|preference)|is my (?:pick|choice|preference|go-to|favou?rite)|"
    r"go for|go with|stick (?:to|with)|remember that|keep in mind|note for the future|from now on|"
    r"going forward|from here on|in future|in the future|for the future|every time|each time"
    r"|by default, use"
    # a restriction the person keeps ("I only fly business these days"): a rule, not what happens to them
    r"|(?:i|we) only (?!just\b|once\b|ever\b|sometimes\b|occasionally\b|recently\b))\b",
    re.I,
)
_ATTRIBUTE = re.compile(
    r"\b(?:i'm|i am|i've been|i have been)\s+(?:not\s+)?(?:a\s+|an\s+)?(?:strict\s+|fully\s+|now\s+|also\s+)?"
    r"(?!(?:not \w+ing\b|going|trying|looking|thinking|not sure|planning|travell?ing|flying|booking|happy"
    r"|fine|ok|okay|"
    r"done|off|back|here|on|in|at|about|just|still|sure|glad|writing|working|using|getting|moving|\w+ing\b))"
    r"(?P<what>[a-z][\w-]*)"
    r"|\bi (?:don't|do not|can't|cannot|never) (?:eat|drink|do)\b|\b(?:only )?eats\b|\ballergic\b|\bintoleran"
    r"|\bi have (?:a"
    r"|an)\s+\w+",
    re.I,
)
_ONE_OFF = re.compile(
    r"\b(?:this time|this once|just once|for this (?:one|task|request|order|trip|booking|project step|"
    r"time|run|week|delivery|flight|meeting|email|message|purchase|return|pr|job|call|draft|paper|"
    r"submission|refund|shipment|ride|stay|reservation|expense|claim|report|event)|"
    r"for now|just for now|only today|today only|right now|for today|temporarily|on this occasion|"
    r"this particular|for the current|in this case|for this specific|just this|only this)\b",
    re.I,
)
# an instruction about this task's own object or moment ("Mark this PR as ready", "Tonight: no cutlery",
# "Make tomorrow's dentist appointment private"): a requirement of this task
_THIS_TASK = re.compile(
    r"\b(?:this (?!is\b|was\b|way\b|kind\b|sort\b|type\b|style\b|stuff\b|year\b|month\b|point\b|stage\b)"
    r"[a-z]+"
    r"|tonight|today's|tomorrow's|tomorrow morning|right away|right now|straight away"
    r"|(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)'s"
    r")\b",
    re.I,
)
# "book it tomorrow" (not "from today on"); a relative clause's "today" ("a loaf that was baked today")
# is cut before this is looked for
_TODAY = re.compile(r"(?<!from )\b(?:today|tomorrow)\b(?! on\b)", re.I)
_LASTING = re.compile(
    r"\b(?:always|never|from now on|going forward|from here on|in future|in the future|for the future|"
    r"every time|each time|whenever|as a rule|in general|generally|remember|keep in mind|standing|"
    r"by default|usually|normally|typically|for good|permanently|all my|any time|anytime)\b",
    re.I,
)
_WITHDRAW = re.compile(
    # "I stop working at five" is a habit and "a scratch that cost me" a noun: neither withdraws
    r"\b(?:no longer|not any ?more|(?:don't|do not|not|isn't|aren't) .{0,60}any ?more"
    r"|(?<!\bi )(?<!\bwe )stop [\w']+ing\b|stopped [\w']+ing\b|(?:don't|do not) (?:need|have) to keep|"
    # "forget my rule" withdraws; "I'll just forget in between" is the person's memory
    r"(?<!\bi )(?<!\bwe )(?<!'ll )(?<!'ll just )(?<!\bwill )(?<!\balways )(?<!\boften )(?<!\busually )"
    r"(?<!\bthey )(?<!\bhe )(?<!\bshe )(?<!\bmight )"
    r"forget (?:about |that |what i said about |my |the )?"
    r"|(?<!\ba )(?<!\bthe )scratch (?:that|my|the|what i said about)|"
    r"(?:drop|scrap|ditch|lose|remove|delete|cancel) (?:my|the|that) .{0,40}?"
    r"(?:preference|rule|request|setting|note|default|thing|idea)s?|"
    r"(?:drop|remove|take) .{1,40}? (?:from|off) my defaults|you can (?:scrap|drop|ditch|remove) (?:it|that)|"
    r"(?:ignore|disregard) what i (?:said|told you|wrote|asked for) (?:about|regarding)|"
    r"(?:cancel|remove|delete|clear|withdraw|retract|ignore) (?:my|the|that) (?:preference|rule|note"
    r"|setting)|"
    r"not (?:a thing|true|the case) any ?more|done with|over (?:it|that) now|i've moved (?:on|away) from|"
    # "My old preference was window, now it's aisle"
    r"my (?:old|former|previous) (?:preference|choice|default|setting|pick) (?:was|used to be)|"
    r"i used to|used to (?:like|love|want|prefer|get|book|have|use|be)|"
    r"moved away from|gave up|given up|quit)\b",
    re.I,
)
_OLD_VALUE = re.compile(
    # "rather than clogging everyone's inbox with emails": the whole doing is replaced
    r"\b(?:instead of|rather than)\s+(?P<doing>[a-z]+ing\b[^,.;!?]*)"
    r"|\b(?:instead of|rather than|switched from|switching from|changed from|moved from|move from|"
    r"away from|(?:prefer|choose|pick|take) (?!my\b)\S+(?: \S+)? over|replacing|replaced"
    # "I prefer the aisle to the window", "I'd rather have the aisle than the window", "X is better than Y"
    # (not an infinitive: "prefers them to come in the morning"; what follows "to" is a gerund or a short
    # phrase that ends the clause)
    r"|prefer(?:s|red|ring)? (?!(?:to|them|it|him|her|us|me)\b)(?:\S+ ){1,3}?to"
    r"(?=\s+(?:(?:the|a|an|my|our)\s+)?(?:[a-z]+ing\b|[^\s,.;!?]+(?:\s+[^\s,.;!?]+)?\s*"
    r"(?:[,.;!?]|$|(?:for|on|in|at|when|if|with|during|unless)\b)))"
    r"|rather (?:have|take|get|do|go with|pick|use|sit) (?:\S+ ){1,3}?than"
    r"|(?:is|are|'s) (?:(?:much|way|far|a lot) )?(?:better|preferable|nicer) than"
    r"|(?:go|gone|went|going|come|came|coming) (?:back )?from"
    # "we've moved off Black and onto Ruff"
    r"|(?:move|moved|moving|switch|switched|switching|come|came|get|got|gotten|gone|went|take|took)"
    r"(?:\s+(?:me|us|it|them))? off"
    r"|(?:moved|switched|changed|shifted|bumped|pushed|moving|switching|changing)(?:\s+(?!from\b)\S+){1,4}\s+from"
    r")\s+"
    r"(?P<old>.+?)"
    r"(?=\s+(?:back to|down to|up to|to|onto|into|and onto|and into|and on to|for|with|now|these)\b"
    r"|[,.;!?]|$)",
    re.I,
)
# a clause that turns down its subject ("Weekly is too much for me", "Paper is out", "No more calls"):
# followed by another value of the same argument it names the value replaced
_REJECTS = re.compile(
    r"^(?:(?P<subject>[^,;:]{1,50}?)\s+(?:is|are|was|were|'s)\s+(?:(?:just|way|far|much|a bit|a little)\s+)?"
    r"(?:too\s+\w+(?!\s+to\b)|out\b(?!\s+of\b)|no good|not working|not for me|overkill)"
    r"|(?P<subject2>[^,;:]{1,50}?)\s+(?:doesn't|does not|don't|do not|isn't|aren't) (?:work|working) for"
    r" (?:me|us)"
    r"|no more\s+(?!than\b)(?P<object>[^,;:.!?]{1,60})"
    # "I've had enough of X", "I'm sick of X"
    r"|(?:i|we)(?:'ve| have|'m| am|'re| are)?\s+(?:had enough|sick|tired) of\s+(?P<object2>[^,;:.!?]{1,60}))",
    re.I,
)


def withdrawn_span(clause: str) -> tuple[int, int] | None:
    """Where the withdrawal cue governs: from the cue to the next break ("forget daily, ...", "...,
    not daily anymore"); None when the clause withdraws nothing."""
    m = _WITHDRAW.search(clause)
    if m is None:
        return None
    brk = re.search(r"[,;:.!?]|\s[-—]\s", clause[m.end() :])
    end = m.end() + (brk.start() if brk else len(clause) - m.end())
    # "Forget PayPal, and gift cards too", "no more PayPal refunds, nor gift cards": what is added
    # after the break is withdrawn with it
    more = _WITHDRAWN_TOO.match(clause, end)
    return m.start(), more.end() if more else end


_WITHDRAWN_TOO = re.compile(
    r"\s*,?\s*(?:(?:and|or|plus)\s+(?:also\s+)?[^,;:.!?]{1,40}?\s+(?:too|as well|either)\b"
    r"|nor\b[^,;:.!?]{1,40})",
    re.I,
)


def rejected_text(clause: str) -> str:
    """What the clause turns down, "" when it turns nothing down (see `_REJECTS`)."""
    m = _REJECTS.match(_DISCOURSE.sub("", clause.strip()))
    if m is None:
        return ""
    return m.group("subject") or m.group("subject2") or m.group("object") or m.group("object2") or ""


# "switch the heating from X to Y", "move the retro from X to Y": a change verb, its object, from X to Y
_CHANGED_FROM = re.compile(
    r"\b(?:switch|move|change|shift|swap|turn|put|bump|take)\s+(?:(?!from\b)[\w'-]+\s+){0,4}?from\s+"
    r"(?P<old>[^,;.!?]+?)\s+(?:back\s+)?(?:to|into|onto)\b",
    re.I,
)
NEGATION = re.compile(
    # "I don't mind the middle seat" accepts it: no negation
    r"\b(?:never|don't(?! mind\b)|do not(?! mind\b)|doesn't(?! (?:mind|bother)\b)|does not(?! mind\b)|"
    r"didn't|won't|will not|can't stand|cannot stand|no|not|"
    # "neither PayPal nor a gift card"; "as long as it isn't the middle"
    r"neither|nor|isn't|aren't|mustn't|"
    r"avoid|avoids|hate|hates|dislike|dislikes|anything but|anything except|anything other than|rather not|"
    # "except on weekends" excludes a situation (a condition), not a value
    r"without|nothing but|except(?!\s+(?:on|when|if|in|at|during|while)\b)|skip|keep away from|steer clear of"
    r"|stay away from|not a fan of|"
    r"no more|none of|nobody|no one|no-one|"
    # what the body refuses or the person is done with: "allergic to chicken", "can't eat gluten"
    r"allergic to|an allergy to|intolerant (?:to|of)|can't (?:eat|have|handle|tolerate|take|do|drink)|"
    r"cannot (?:eat|have|handle|tolerate|take|do|drink)|not into|not interested in|sick of|tired of|"
    r"fed up with|give up|giving up|gave up|cut(?:ting)? down on|cut(?:ting)? (?:[\w'-]+ )?out)\b",
    re.I,
)
# a thing judged not worth having: "Certificates are pointless for me", "paper receipts are a waste"
REFUSED_PREDICATE = re.compile(
    r"(?P<thing>(?:[\w'-]+\s+){0,3}[\w'-]+)\s+(?:is|are|'s|'re|seems?|feels?)\s+"
    r"(?:(?:totally|completely|just|pretty|kind of|a bit|so|really|honestly)\s+)?"
    r"(?:pointless|useless|unnecessary|overkill|not needed|not necessary|no use|a rip-?off"
    r"|a waste(?: of (?:time|money|space))?"
    # "the shiny paper is a no", "red-eyes are a dealbreaker": a thing ruled out in so many words
    r"|a (?:hard |firm |definite )?no(?:-go)?|a non-?starter|a deal-?breaker|off the table"
    r"|out of the question"
    # "photos are a pain", "paper is a hassle"
    r"|a (?:real |total |huge )?(?:pain|hassle|nightmare|headache|nuisance)|annoying|the worst"
    # "first class is not worth it", "never worth the money"
    r"|(?:not|never)\s+worth (?:it|the \w+)"
    # "beginner is too slow", "80 is too cramped": a thing judged too much of something is turned down
    r"|(?:way |much |far |a bit |a little |just )?too (?!many\b|much\b|late\b|bad\b|early\b)[a-z]+)\b",
    re.I,
)
# the same said after the thing: "a peanut allergy", "lactose intolerant", "raw fish makes me queasy"
_AVERSION_AFTER = re.compile(
    r"(?P<thing>(?:[\w'-]+\s+){0,2}[\w'-]+)\s+(?:allergy|allergies|intolerance|intolerant|"
    r"(?:makes|make|made) me (?:sick|ill|queasy|nauseous|gag))\b",
    re.I,
)
# The two patterns above try every word as the start of their thing: a text without their judgement
# words is skipped first (a tenth of the time, the same matches).
_REFUSED_WORDS = re.compile(
    r"pointless|useless|unnecessary|overkill|not need|not necess|no use|rip-?off|a waste|\btoo "
    r"|a (?:hard |firm |definite )?no\b|no-go|starter|breaker|off the table|out of the question"
    r"|pain|hassle|nightmare|headache|nuisance|annoying|the worst|worth",
    re.I,
)
_AVERSION_WORDS = re.compile(r"allerg|intoleran|ma(?:kes?|de) me", re.I)


def refused_predicates(text: str) -> Iterator[re.Match[str]]:
    """`REFUSED_PREDICATE.finditer(text)`, skipped where no judgement word occurs."""
    return REFUSED_PREDICATE.finditer(text) if _REFUSED_WORDS.search(text) else iter(())


def _aversions(text: str) -> Iterator[re.Match[str]]:
    return _AVERSION_AFTER.finditer(text) if _AVERSION_WORDS.search(text) else iter(())


_HEDGE = re.compile(
    r"\b(?:i wonder|wondering|maybe|perhaps|might|not sure|unsure|thinking about|considering|"
    r"what if|would it be|is it worth|should i|do you think|curious|haven't decided|undecided|"
    r"could be|i guess)\b",
    re.I,
)
# "one, maybe two per message": "maybe" between amounts gives a range, it does not hedge the wish
_NUMBER_WORD = (
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty"
    r"|fifty|sixty|seventy|eighty|ninety|hundred|a few|a couple)"
)
_APPROXIMATE = re.compile(
    rf"\b{_NUMBER_WORD}\s*,?\s*(?:or\s+)?(?:maybe|perhaps)\s+{_NUMBER_WORD}\b"
    rf"|\b(?:maybe|perhaps)\s+{_NUMBER_WORD}\s+(?:or|to)\s+{_NUMBER_WORD}\b",
    re.I,
)
_QUESTION_OK = re.compile(
    r"\b(?:always|from now on|remember|going forward|every time|can you|could you|would you)\b", re.I
)
# a condition: a subordinate phrase saying where a value applies. Leading: up to a comma, or up to
# the main clause's subject or verb when there is no comma ("On flights over six hours I want ...").
SUBORDINATOR = _SUBORDINATOR = (
    r"(?:when(?:ever)?|if|unless|on|for|during|while|in case|any ?time|every time|each time|over|above|"
    r"under|below|before|after|outside|within|with|at|in|only when|only if|only for|only on|as long as|"
    r"provided|except when|except for|except on"
    # a recurring day or part of the day ("Every Friday, ...")
    r"|(?:every|each)(?=\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|weekday"
    r"|morning|afternoon|evening|night)))"
)
# "once" that opens a clause ("once I'm done"), not how often ("once a week", "once in a while")
ONCE_CLAUSE = r"once(?!\s+(?:a|an|per|every|or twice|in a while)\b)"
# trailing: a subordinator after the value ("... business class on flights over six hours")
_TRAIL_SUBORDINATOR = (
    r"(?:when(?:ever)?|if|on|for|during|while|in case|any ?time|every time|each time|until|till|"
    r"in the|only when|only if|only for|only on|as long as|provided|except when|except for|except on"
    rf"|unless|{ONCE_CLAUSE}|after|before|between|outside"
    # "with" names a manner of the value ("with extra cheese") except before the people it is for
    # ("formal with clients and friendly with friends")
    rf"|with(?=\s+(?:my\s+|our\s+|the\s+|new\s+)?(?:{_RELATIONS}|clients|customers|friends|family|strangers"
    r"|investors|vendors|suppliers|children|people|recruiters|partners)\b)"
    # "in" names a place or a manner of the value ("in German") except before a season or a month
    r"|in(?=\s+(?:winter|summer|spring|autumn|fall|january|february|march|april|may|june|july|august"
    r"|september|october|november|december)\b)"
    # "at" names a place of the value ("at the door") except before a time or situation of the day
    r"|at(?=\s+(?:night|weekends?|the weekend|bedtime|lunchtime|dinnertime|dawn|dusk|sunrise|sunset|work"
    r"|home|rush hour|peak times?)\b)"
    # a recurring day or part of the day ("the vegan meal every Friday")
    r"|(?:every|each)(?=\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|weekday"
    r"|morning|afternoon|evening|night)))"
)
# (a comma or a point inside a number does not end it, "over $1,000": `offline._trailing_condition`)
COND_TRAIL = re.compile(rf"\b(?P<cond>{_TRAIL_SUBORDINATOR}\b[^,;.!?]{{2,90}})", re.I)
# condition phrases that are not conditions: scope of the statement itself, a one-off, the future
_NOT_COND = re.compile(
    r"^(?:for|on|in|at|with)\s+(?:me|now|good|the future|future|all|everything|sure|example|instance|a while|"
    r"this(?:\s|$)|these|that|now on|here on|ever|short|real|myself|us|the record|reference|what it's worth|"
    r"my (?:own )?(?:bookings?|orders?|stuff|account|things|part|trips?)|years|ages|a change|once"
    r"|the most part|"
    r"the rest|the time being|then on|(?:a|the) (?:long|short) (?:run|term)|(?:my|our) (?:usual|default))\b"
    r"|^(?:in|at|with|on)\s+(?:general|all|any case|full|total|advance|person|mind|a rush|future|order|time|"
    r"the end|the meantime|particular)\b"
    r"|^(?:at|in|on)\s+(?:least|most|first|last|once|best)\b|^(?:over|instead|rather)\s+(?:the|a|an|my"
    r"|any)?\s*\w+$"
    # a duration ("my card has been frozen for weeks"), a manner ("as soon as possible"), an idiom of way
    # or time ("on the way", "on time"), or everyone the rule is for ("for the team", "for everyone"): not
    # situations
    r"|^for\s+(?:(?:a|an|\d+|a few|several|many|some|two|three|four|five|six|ten|more|long)\s+)*"
    r"(?:seconds?|minutes?|hours?|days?|nights?|weeks?|months?|years?|ages|decades?|ever|good|a bit|a while)$"
    r"|^as\s+(?:long|soon|much|often|early|late|quickly|fast)\s+as\s+"
    r"(?:possible|i can|we can|you can|they can)\b"
    r"|^on\s+(?:the way|time|purpose|my own|its own|their own|the go|the fly|hand|the whole)\b"
    r"|^for\s+(?:(?:the|my|our|your)\s+(?:whole\s+|entire\s+)?(?:team|group|company|everyone)"
    r"|everyone|everybody|all of us|both of us|us all)$"
    # asides, not situations: "if I'm honest", "if you ask me", "if possible", "if that's ok"
    r"|^if\s+(?:i'm honest|i am honest|you ask me|possible|at all possible|that's ok|that's okay|you can"
    r"|you don't mind|need be|necessary|anything)\b"
    # the speaker's own say-so, not a situation: "unless I say otherwise", "unless I approve it first"
    r"|^unless\s+(?:i|we)\s+(?:\w+\s+)?(?:say|tell|ask|okay|ok|approve|specify|mention|request|confirm"
    r"|agree|decide|change)\w*\b"
    # a story, not a situation: "when we left the old host", "when I was younger"
    r"|^\w+\s+(?:i|we|he|she|they|you|it)\s+(?:\w+ed|was|were|had|left|gave|got|went|came|took|made"
    r"|did|moved|switched)\b",
    re.I,
)


@dataclass
class Clause:
    """One clause of a statement as read from its words alone: whose it is, what kind of statement, when
    it applies, whether it withdraws or revises, and which spans a negator governs (`analyse`)."""

    text: str  # the clause, condition removed
    sentence: str  # the whole sentence (the quote)
    holder: str = "user"
    kind: str = "preference"
    lasting: bool = True
    condition: str = ""
    withdraws: bool = False
    # character spans of the clause a negator governs ("never to a gift card")
    negated_spans: list[tuple[int, int]] = field(default_factory=list)
    old_values_text: str = ""  # text naming what is replaced ("rather than X")
    statement: bool = True  # False: a question, a hedge or a reference to memory
    # the old value needs a new value of its own argument beside it ("switch the heating from X to Y"; in
    # "move the money from savings to checking" the two are different arguments: a source, no revision)
    old_paired: bool = False
    rejected_text: str = ""  # what the clause turns down ("X is too much", "no more X"): an old value


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s and s.strip()]


# "Forget PayPal, refunds go to my bank account now": a withdrawal said first and the new wish after a
# comma are two clauses (the second revises what the first withdrew)
# words a withdrawal may open with ("Actually, scratch that, ...")
_LEAD_IN = r"^\s*(?:(?:actually|ok|okay|oh|wait|sorry|no|hmm|right)\s*,?\s+)*"
_WITHDRAWN_FIRST = re.compile(
    _LEAD_IN + r"(?:forget(?: about)?|scratch|ditch|never mind|no more|enough (?:of|with))\s+[^,;.]{1,40},\s+"
    r"(?!(?:and|or|but|not|nor|either|too|as well)\b)(?=\S+\s+\S+\s+\S)",
    re.I,
)


# "My wife always wants the window seat, I want the aisle", "Book vegan meals for me, my partner eats
# kosher": after a comma, a new subject with its own wish or habit starts a clause of its own (not after a
# leading condition: "If my wife comes, I want the aisle")
_NEW_SUBJECT = re.compile(
    r",\s+(?=(?:(?:i|we)(?:'d|'m|'re|'ll)\b|(?:i|we)(?:\s+(?:always|usually|really|just|only|definitely"
    r"|personally|myself|still))?\s+(?:want|prefer|like|love|would|am|are|will)\b"
    rf"|(?:my|our)\s+(?:\w+\s+)?(?:{_RELATIONS})\b(?:\s+[A-Z][a-z]+)?\s+{_PERSON_VERB}))",
    re.I,
)
_LEADING_CONDITION = re.compile(rf"^\s*{_SUBORDINATOR}\b", re.I)


# "Scratch that, aisle please": "that" names nothing to read, so the wish after it may be short
_WITHDRAWN_THAT = re.compile(
    _LEAD_IN + r"(?:forget|scratch|ignore|never mind)\s+(?:that|this|it)\s*,\s+(?=\S)",
    re.I,
)


def split_clauses(sentence: str) -> list[str]:
    first = _WITHDRAWN_FIRST.match(sentence) or _WITHDRAWN_THAT.match(sentence)
    if first:
        return [sentence[: first.end()].strip(" ,"), *split_clauses(sentence[first.end() :])]
    parts = [p.strip(" ,") for p in _CLAUSE.split(sentence) if p and p.strip(" ,")]
    out = []
    for part in parts or [sentence]:
        if _LEADING_CONDITION.match(part):
            out.append(part)
            continue
        out.extend(p.strip(" ,") for p in _NEW_SUBJECT.split(part) if p.strip(" ,"))
    return out


def speaker_name(text: str) -> str:
    """A self-introduction ("I'm Priya." / "This is Tomasz,"): the speaker is that person."""
    m = _INTRO.search(text or "")
    if m and m.group("name").split()[0] not in NOT_NAMES:
        return _untitled(m.group("name"))
    return ""


def holder_of(clause: str, speaker: str = "user", project: str = "") -> str:
    """Whose preference or decision the clause states."""
    for rel in _RELATION.finditer(clause):
        after = clause[rel.end() :]
        if _REASON_BEFORE.search(clause[: rel.start()]):
            continue  # "book two beds, since my son travels with me": a reason's subject is not whose it is
        if _SO_INSTRUCTION.search(clause, rel.end()):
            continue  # "My daughter flies with me, so book the window": the reason for the speaker's wish
        if (
            _PERSON_AFTER.match(after)
            or _ACCORDING_TO.search(clause[: rel.start()])
            or (
                _SUBJECT_BEFORE.search(clause[: rel.start()])
                and (_DESIRE.search(after) or _HABIT.search(after))
            )
        ):
            # "Keiko, our CFO, wants ...": the name the relation stands in apposition to
            named = re.search(rf"\b(?P<name>{_TITLE}[A-Z][a-z]+),\s*$", clause[: rel.start()])
            if named and named.group("name").split()[0] in NOT_NAMES:
                named = None
            name = rel.group("name") or (named.group("name") if named else "")
            return f"person:{_untitled(name) or rel.group('rel').lower()}"
        # "copy my manager on it", "so I can check on my kids", "since my daughter flies with me", "my
        # colleagues tease me": an object, a reason's subject or a subject that wants nothing, not whose
        # the statement is
    group = _GROUP_SUBJECT.search(clause)
    if group:
        return f"team:{group.group('team').lower()}"
    for team in _TEAM.finditer(clause):
        before = clause[: team.start()]
        if not (
            _SUBJECT_BEFORE.search(before)
            or _GROUP_AFTER.match(clause, team.end())
            or _SOURCE_BEFORE.search(before)
        ):
            continue  # "when I travel with my hiking club": a group in a phrase is not whose the fact is
        if team.group("group"):
            return f"team:{team.group('group').lower()}"
        name = re.sub(r"^(?:the|our|my|their)\s+", "", team.group("team").strip(), flags=re.I).lower()
        words = name.split()
        if words and not any(w in _NOT_TEAM_WORDS for w in words):
            # "the office lunch committee": the group's own name ("lunch committee"), not its article
            kind = re.search(r"\w+$", team.group(0)).group(0).lower()
            return f"team:{name}" if kind == "team" else f"team:{name} {kind}".strip()
    if _WHOLE_TEAM.search(clause):
        # "Our team never flies business", "everyone on the team uses ...": a team without a name
        return "team:"
    for m in _NAMED.finditer(clause):
        name = m.group("name")
        if re.search(r"(?:\bis|'s)\s*$", m.group(0)) and (
            _THING_PREDICATE.match(clause, m.end())
            or re.search(r"\b(?:my|our|your|the|a|an)\s+(?:[a-z]+\s+)?$", clause[: m.start()], re.I)
        ):
            # "French is my first language", "Weekly is too much for me", "my written English is shaky":
            # what is said of it is said of a thing (the speaker's own something, an evaluation for the
            # speaker, a determined noun), not of a person
            continue
        if name.split()[0] not in NOT_NAMES and not _REASON_BEFORE.search(clause[: m.start()]):
            return f"person:{_untitled(name)}"
    pos = _POSSESSIVE.search(clause)
    if pos and pos.group("name") not in NOT_NAMES:
        return f"person:{_untitled(pos.group('name'))}"
    if _THIRD.search(clause) or _THIRD_WISH.search(clause):
        # "when you book for Sam, remember she expects a window seat"
        return "person:"
    if _DECISION.search(clause):
        return f"project:{project_name(clause) or project}"
    return speaker


# after "<Capitalised> is": a predicate that fits a thing, not a person: the speaker's own something that is
# no relation ("my first language"), or an evaluation for the speaker ("too much for me", "fine by me")
_THING_PREDICATE = re.compile(
    rf"\s+(?:(?:my|our)\s+(?!(?:\w+\s+)?(?:{_RELATIONS})\b)"
    r"|(?:(?:way |far |much )?too\s+\w+(?!\s+to\b)|ideal|perfect|enough|overkill)\b"
    # a means judged best ("Text is the best way to reach me"): a thing, not a person
    r"|(?:the\s+)?(?:best|easiest|quickest|fastest|simplest|safest|cheapest|only)\s+"
    r"(?:way|option|choice|bet|route|method)\b"
    r"|(?:out|in)(?=\s*(?:[,.;!?]|$))"
    r"|[^,.;!?]{0,30}\b(?:for|by|to) me\b)",
    re.I,
)


# what a group decided, asked or ruled, passed on by someone ("Amara forwarded a decision from the
# design team: ...", "a request by the legal team"): the group is whose it is, not the one passing it on
_SOURCE_BEFORE = re.compile(
    r"\b(?:decision|rule|request|policy|instruction|preference|choice|ruling|verdict|requirement|call)s?"
    r"\s+(?:from|of|by)\s*$",
    re.I,
)


# "According to my wife, I should fly business": whose word it is, not the speaker's
_ACCORDING_TO = re.compile(r"\b(?:according to|as per|on the advice of|at the request of)\s*$", re.I)
# a third person the main clause points back to (the person its condition named)
_POINTS_BACK = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their)\b", re.I)
# a subordinator of reason just before a subject: that subject is the reason's, not the statement's
_REASON_BEFORE = re.compile(r"\b(?:since|because|as|cause|'cause|so that)\s+$", re.I)


# ", so" and an instruction after it: what comes before is the reason for the speaker's own wish
_SO_INSTRUCTION = re.compile(
    r",\s*so\s+(?:please\s+|just\s+)?(?:book|get|put|give|make|pick|use|keep|send|order)\b", re.I
)
# a relation is the holder where it opens a clause ("my colleague Priya always wants", "..., but my
# wife ...", "for my son, ...") or has a verb of wanting after it ("I think my boss prefers ...")
_SUBJECT_BEFORE = re.compile(
    r"(?:^|[,;:—-]|\b(?:and|but|though|although|while|whereas|that|also|plus|oh|says|said))\s*$", re.I
)
_PERSON_AFTER = re.compile(rf"\s*(?:,[^,]{{2,60}},)?\s*,?\s*{_PERSON_VERB}", re.I)
_GROUP_AFTER = re.compile(
    rf"\s*(?:{_PERSON_VERB}|(?:has\s+|have\s+)?(?:decided|agreed|settled|voted|switched|ruled|chose|mandated"
    r"|never|always|all)\b)",
    re.I,
)
_THIRD_WISH = re.compile(
    r"\b(?:he|she)\s+(?:always\s+|really\s+|also\s+)?(?:expects|wants|prefers|likes|needs|insists|hates"
    r"|requires|demands|would rather|'d rather)\b",
    re.I,
)


# a team without a name as the subject ("Our team never ...", "The whole team agreed", "Everyone on the
# team uses ..."); "for the team" and "the team budget" are not subjects
_WHOLE_TEAM = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|but|that|so)\s+)(?:(?:our|the|my)\s+(?:whole\s+|entire\s+)?team"
    r"|every(?:one|body)\s+(?:on|in)\s+(?:the|our|my)\s+team)\s+"
    rf"(?:{_PERSON_VERB}|(?:never|always|usually|all|has|have)\b|(?:agreed|decided|settled|voted|does|do)\b"
    # a verb in the present with its object ("Our team squashes everything", "the team reviews every PR")
    r"|[a-z]+s\s+(?:everything|all|every|each|the|our|its|their|any)\b)",
    re.I,
)


def about_holder(condition: str, holder: str) -> bool:
    """The condition speaks of the holder (by name or as he / she) and says little else."""
    name = holder.split(":", 1)[1].lower()
    said = set(re.findall(r"[a-z]+", condition.lower()))
    person = {"he", "she", "him", "her", "his", "hers", "prof", "dr", "mr", "mrs", "ms"} | set(
        re.findall(r"[a-z]+", name)
    )
    return bool(said & person) and len(set(content_words(condition)) - person) <= 2


def _situated_holder(holder: str, condition: str, rest: str, speaker: str, project: str) -> str:
    """Whose the rule is when the clause has a situation (`condition`; `rest`: the clause after it)."""
    if not condition:
        return holder
    if (
        holder.startswith("person:")
        and holder_of(rest, speaker, project) == speaker
        and not _POINTS_BACK.search(re.split(r"[,;—–]|\s-\s", rest, maxsplit=1)[0])
    ):
        # "If my dad is coming, we need seats without stairs", "For my son's tutoring, reports go to my
        # wife": a person named only in the situation is not whose the rule is, unless the rule points
        # back to them ("When Sam travels, book him an aisle seat", "For my daughter, she wants ...")
        return speaker
    if holder == "person:":
        # "When Tom flies, he wants the window": the pronoun is the person its condition names
        return f"person:{_one_person(condition)}"
    return holder


def _one_person(text: str) -> str:
    """The one person `text` names (a relation, else one capitalised name), "" when none or several."""
    rels = [_untitled(m.group("name")) or m.group("rel").lower() for m in _RELATION.finditer(text)]
    names = [w for w in re.findall(r"(?<=\s)[A-Z][a-z]+\b", text) if w not in NOT_NAMES]
    found = set(rels or names)
    return found.pop() if len(found) == 1 else ""


def _untitled(name: str | None) -> str:
    """A person's name without a title ("Dr. Osei" -> "Osei")."""
    return re.sub(rf"^{_TITLE}", "", name or "")


# words that are not a team's name before "team" ("for the team", "to the team", "whole team")
_NOT_TEAM_WORDS = frozenset(
    "the a an our my their for to with of in on at by from whole entire same this that every each".split()
)


def project_name(text: str) -> str:
    for m in _PROJECT.finditer(text):
        name = m.group("name") or m.group("name2") or ""
        if name and name.split()[0] not in NOT_NAMES:
            return name
    return ""


# where a clause's main part begins after a leading subordinate phrase that has no comma: a subject
# pronoun ("When we go abroad | I want ..."), "it"/"there" with its verb ("If the flight is overnight | it
# has to be a window"), an adverb or "please" that opens an instruction, an instruction's verb, or a
# determined noun phrase with its finite verb ("For day trips | a small car is enough")
_INSTRUCTION_VERBS = (
    "book|use|send|make|pay|ship|put|get|choose|pick|go|set|order|keep|reserve|schedule|format|write|give"
    "|add|include|stick|switch|file|charge|bill|route|mark|save|select|let|have|arrange|reply|submit|run"
    "|deploy|return|tag|assign|apply|turn|leave|skip|drop|tell|cap|limit|remind|hold|tip|forward|cc|copy"
    "|invite|move|plot|render|export|merge|push|notify|alert|open|take|bring|default|treat|categori[sz]e"
)
_MAIN_START = re.compile(
    r"\b(?:(?:i|we|he|she|they)(?:'m|'re|'s|'ve|'d|'ll)?\b(?!')"
    r"|(?:it|there|that|you)(?:'s|'re|'ll|'d)?\s+(?:is|are|was|has|have|had|should|must|can|could|will"
    r"|would|needs?|gets?|goes|shall|may|might)\b"
    r"|(?:it|there|that|you)(?:'s|'re|'ll|'d)\b"
    r"|(?:please|always|never|just|don't|do not|make sure)\b"
    # an instruction's verb, not a noun that ends the phrase ("after a long run I ...", "the order")
    rf"|(?<!\ba\s)(?<!\ban\s)(?<!\bthe\s)(?<!\bmy\s)(?<!\bour\s)(?:{_INSTRUCTION_VERBS})\b(?!-)"
    r"(?!\s+(?:i|we|he|she|they)\b)(?!\s*[,;:])"
    r"|(?:a|an|the|my|our|all|every|any|each)\s+(?:[\w'-]+\s+){0,3}?(?:is|are|should|must|can|could|will"
    r"|would|has to|have to|needs? to|needs|ships?|goes|go|comes?|counts?)\b)",
    re.I,
)
# subordinators that open a clause of their own ("when I travel", "if the fare is over 300"): its subject
# and verb come before the main clause can begin
_CLAUSAL = re.compile(
    rf"(?:when(?:ever)?|if|unless|while|{ONCE_CLAUSE}|as long as|in case|provided(?: that)?|any ?time"
    r"|every time|each time|only when|only if|except when)\b",
    re.I,
)
_DISCOURSE = re.compile(
    r"^(?:(?:but|and|also|oh|ok|okay|so|though|however|actually|from now on|going forward|in future"
    r"|generally|in general)[,]?\s+)*",
    re.I,
)
_SUBORDINATOR_AT = re.compile(rf"{_SUBORDINATOR}\b", re.I)
# a leading condition may also open the complement of a reporting or deciding verb ("The board agreed that
# for conference travel we fly economy", "Sam says for client dinners we should ...")
_COMPLEMENT = re.compile(
    # a bare "that" after a noun opens a relative clause ("Tests that hit the network ..."), not a complement
    r"^[^,;:]{0,60}?\b(?:says|said|decided|agreed|thinks|reckons|told me|asked|insists|ruled|feels)"
    r"(?:\s+that)?\s+(?=\S)",
    re.I,
)


def _lead_condition(text: str) -> tuple[str, str]:
    """A subordinate phrase opening `text` and the main clause after it, or ("", text)."""
    lead = _DISCOURSE.match(text)
    start = lead.end() if lead else 0
    sub = _SUBORDINATOR_AT.match(text, start)
    if sub is None:
        return "", text
    # the phrase ends at a comma or colon, or where the main clause begins; a clausal subordinator's own
    # subject and verb (two words) and a preposition's object (one word) come first
    stop = re.search(r"\s*[,:;]\s+", text[sub.end() :])
    end = sub.end() + stop.start() if stop else len(text)
    rest_at = sub.end() + stop.end() if stop else len(text)
    skip = 2 if _CLAUSAL.match(text, sub.start()) else 1
    words = list(re.finditer(r"\S+", text[sub.end() :]))
    if len(words) > skip:
        scan_from = sub.end() + words[skip].start()
        main = _MAIN_START.search(text, scan_from)
        if main and main.start() < end:
            end = rest_at = main.start()
    cond = text[start:end].strip()
    if not 2 <= len(cond) - len(sub.group(0)) <= 90 or rest_at >= len(text) or is_not_condition(cond):
        return "", text
    return cond.rstrip(".!?"), text[rest_at:].strip()


# A noun phrase can scope a rule as a subordinate phrase does: the subject of a modal or of a verb of
# going or counting ("Refunds for damaged parcels should go back to PayPal", "Taxis after midnight go on
# the company card", "Anything over 300 needs approval"), the object of a wish with its own infinitive
# ("I want overseas refunds to land on my gift card") or of a verb that files a thing as a value
# ("categorize airport parking as transport"). Whether the phrase narrows the tool's object or merely
# names it or an argument ("The seat should be ...") is decided against the schema (`offline._scope_only`).
_NP = r"(?P<np>[\w$'’-]+(?:\s+[\w$'’.-]+){1,7}?)"
_SCOPE_SUBJECT = re.compile(
    rf"^{_NP}\s+(?=(?:should|must|can|could|ought to|need to|needs to|has to|have to"
    r"|needs|need|go|goes|count|counts|come|comes|are to|is to)\b)",
    re.I,
)
_SCOPE_OBJECTS = (
    re.compile(
        r"\b(?:wants?|wanted|needs?|needed|likes?|would like|'d like|prefers?|expects?|requires?|asks?)\s+"
        # (the infinitive after "to": "I prefer video calls to meeting in person" compares two things)
        rf"{_NP}\s+to\s+(?!me\b|you\b|us\b|him\b|her\b|them\b|the\b|a\b|an\b|my\b"
        r"|(?!(?:b|st|sp|s|sw|w|cl|fl|sl|wr|str|spr)?r?ing\b)[a-z]+ing\b)[a-z]+\b",
        re.I,
    ),
    re.compile(
        r"\b(?:categori[sz]es?|categori[sz]ed|files?|filed|class(?:es|ify|ifies|ified)?|treats?|treated"
        rf"|counts?|counted|logs?|logged|books?|booked|records?|recorded)\s+{_NP}\s+(?:as|under)\b",
        re.I,
    ),
)
# a noun phrase that is a person or the speaker's own thing, a pronoun, this task's object, or an
# evaluation ("my favourite cuisine should be ...") scopes nothing
_NOT_SCOPE_NP = re.compile(
    r"^(?:i|we|you|he|she|they|it|this|that|these|those|there|nobody|no one|everyone|everybody|someone"
    r"|somebody|one|me|us|him|her|them|my|our|your|his|their|its|whoever|what|which|who|whatever"
    r"|please|just|also|and|but|so|then|now)\b"
    r"|\b(?:favou?rite|preferred|usual|default|normal|standard|best|ideal|go-to|first|only|same|whole"
    r"|general|overall|right|perfect|top|next|last|current|this|these|those|today's|tomorrow's"
    r"|tonight's)\b|\b(?:colleague|partner|wife|husband|boss|manager|team|department|committee|group)s?$"
    r"|\b(?:is|are|was|were|be|been|i|we|you|he|she|they|should|must|can|will|would|do|does|did|don't"
    r"|decided|agreed|settled|said|says|told|thinks|wants|wanted|likes|prefers|needs|asked|insists"
    r"|doesn't|not|never|always|usually|please)\b",
    re.I,
)


def _scope_phrase(text: str) -> tuple[str, str]:
    """A noun phrase that scopes the clause (see `_SCOPE_SUBJECT`), and the clause without a leading
    one; ("", text) when none."""
    m = _SCOPE_SUBJECT.match(text)
    lead = m is not None
    for pattern in _SCOPE_OBJECTS:
        m = m or pattern.search(text)
    if m is None:
        return "", text
    np = m.group("np").strip()
    # a person ("Dana, our CTO, wants", "Ravi in finance needs ...") is a holder, not a scope
    person = _RELATION.search(np) or any(
        m.group("name").split()[0] not in NOT_NAMES for m in _NAMED.finditer(f"{np} wants")
    )
    if person or _NOT_SCOPE_NP.search(np) or len(content_words(np)) < 2 or re.search(r"[A-Z][a-z]+,", np):
        return "", text
    return np, (text[m.end() :].strip() if lead else text)


# a short verbless phrase set before the clause by a comma is its topic, a scope like a condition
# ("Overnight flights, a window seat is best", "Short sessions, low intensity is fine"); asides, time
# markers of a one-off and persons addressed are not
_TOPIC = re.compile(r"^(?P<np>[\w'’-]+(?:\s+[\w'’-]+){1,3}),\s+(?P<rest>.+)$")
_NOT_TOPIC = re.compile(
    r"\b(?:i|we|you|he|she|they|it|me|us|him|her|them|my|our|your|i'm|it's|that's|honestly|actually"
    r"|basically|ok|okay|also|so|well|yes|yeah|no|sure|thanks|thank|please|anyway|personally|frankly|fine"
    r"|great|right|oh|hey|hi|hello|dear|look|listen|first|second|finally|lastly|plus|besides|otherwise"
    r"|instead|however|still|again|way|record|short|honest|said|note|heads|news|thing|same|usual|like|as"
    r"|then|now|generally|usually|normally|typically|ideally|preferably|obviously|anyhow|wise"
    # "Window or aisle, I don't care": alternatives offered, not a topic
    r"|or|either|neither|nor|default|defaults|next time|in future)\b|\w+ly\b",
    re.I,
)
_FINITE = re.compile(
    r"\b(?:i|we|you|he|she|they|it|there|is|are|was|were|should|must|can|could|will|would|needs?|has|have)\b"
    r"|\w'(?:s|re|ll|d)\b",
    re.I,
)


def _topic(text: str) -> tuple[str, str]:
    m = _TOPIC.match(text)
    if (
        m is None
        or _NOT_TOPIC.search(m.group("np"))
        or not (
            _FINITE.search(m.group("rest")) or re.match(rf"(?:{_INSTRUCTION_VERBS})\b", m.group("rest"), re.I)
        )
    ):
        return "", text
    if re.match(
        rf"(?:{_INSTRUCTION_VERBS}|avoid|prefer|want|need|no|not|never|always|don't|do not|please)\b",
        m.group("np"),
        re.I,
    ):
        return "", text  # "Skip the dessert, I'm full": an instruction, not a topic
    if (
        _ONE_OFF.search(m.group("np"))
        or _THIS_TASK.search(m.group("np"))
        or re.search(r"[A-Z]", m.group("np")[1:])
    ):
        return "", text  # "Next week, ...", "Priya Shah, ...": a one-off's time or a person addressed
    return m.group("np"), m.group("rest")


def find_condition(clause: str) -> tuple[str, str]:
    """(condition span, the clause without it); ("", clause) when the clause holds everywhere."""
    text = clause.strip()
    cond, rest = _lead_condition(text)
    if cond:
        return cond, rest
    comp = _COMPLEMENT.match(text)
    if comp:
        cond, rest = _lead_condition(text[comp.end() :])
        if cond:
            return cond, text[: comp.end()] + rest
        # "Sam says refunds for damaged parcels should go to PayPal"
        cond, rest = _scope_phrase(text[comp.end() :])
        if cond:
            return cond, text[: comp.end()] + rest
    if _SUBORDINATOR_AT.match(text):
        return "", clause
    cond, rest = _topic(text)
    return (cond, rest) if cond else _scope_phrase(text)


def is_not_condition(phrase: str) -> bool:
    return bool(_NOT_COND.match(phrase.strip()))


_REFUSALS_AFTER = (
    "not so much|not really|not for me|no thanks|no thank you|not a chance|no way|definitely not"
    "|absolutely not|not at all"
)
_NEGATED_AFTER = re.compile(rf"(?<=\w)\s*,?\s+(?:{_REFUSALS_AFTER})(?=\s*(?:[,;.!?]|$))", re.I)
# (the pattern above tries every position; a text without its words is skipped first)
_NEGATED_AFTER_WORDS = re.compile(_REFUSALS_AFTER, re.I)


def negated_spans(text: str) -> list[tuple[int, int]]:
    """Spans governed by a negator: from the negator to the next clause break ("never to a gift
    card"; "anything but economy")."""
    out = []
    for m in NEGATION.finditer(text):
        if re.match(r"no longer|not any ?more", text[m.start() :], re.I):
            continue
        end = len(text)
        # a new subject after "and" ends it: "I hate the middle seat and I'm not keen on the window"
        brk = re.search(
            r"[,;.!?]|\s(?:but|and then|instead|rather)\s|\s(?:and|or)\s+(?=(?:i|we|i'm|i'd|we're|we'd)\b)",
            text[m.end() :],
            re.I,
        )
        if brk:
            end = m.end() + brk.start()
        out.append((m.start(), end))
    for m in _NEGATED_AFTER.finditer(text) if _NEGATED_AFTER_WORDS.search(text) else ():
        # "mornings not so much", "video, not really": the refusal after the thing governs back to the
        # break before it
        brk = max(text.rfind(c, 0, m.start()) for c in ",;:.!?")
        out.append((brk + 1, m.end()))
    for m in _aversions(text):
        out.append((m.start("thing"), m.end()))
    for m in refused_predicates(text):
        out.append((m.start("thing"), m.end()))
    return out


# a decision's leading scope names the project it was taken for ("For the Apollo launch we decided ...",
# "On the billing-service repo we agreed ..."): the holder, not a condition
_PROJECT_SCOPE = re.compile(r"^(?:for|on|in)\s+(?:the\s+|our\s+)?(?P<name>\w[\w -]{1,40}?)\s+project$", re.I)
_SCOPE_NAME = re.compile(
    r"^(?:for|on|in)\s+(?:the\s+|our\s+)?(?P<name>[\w][\w -]{1,40}?)(?:\s+(?:project|repo|launch|team))?$",
    re.I,
)


# "after the incident", "since that trip": a particular event (definite), not a recurring situation
_PAST_EVENT = re.compile(r"^(?:after|since|following)\s+(?:the|that|this|my last|our last|last)\s+\w+", re.I)
# a statement that tells a change of mind ("I used to ...", "... any more", "no longer", "now I ...")
_CHANGE_OF_MIND = re.compile(
    r"\bused to\b|\bany ?more\b|\bno longer\b|\bnow\s+(?:i|we)\b|\b(?:i|we)\s+now\b|\bthese days\b", re.I
)


# a comma, then a new subject and its verb ("..., I don't really like ...", "..., we never ...")
_OWN_CLAUSE_AFTER = re.compile(
    r",\s+(?:i|we)\s+(?:don't|do not|can't|cannot|never|really|just|hate|find)\b", re.I
)


def analyse(sentence: str, clause: str, speaker: str = "user", project: str = "") -> Clause:
    condition, rest = find_condition(clause)
    if condition and _PAST_EVENT.match(condition) and _CHANGE_OF_MIND.search(sentence):
        # "I used to like X, but after the incident with the client I want Y": a particular past event
        # in a story of a change of mind says why the wish changed, not when it applies
        condition = ""
    holder = _situated_holder(holder_of(clause, speaker, project), condition, rest, speaker, project)
    scope = _SCOPE_NAME.match(condition) if condition and _DECISION.search(rest) else None
    if scope and holder.split(":")[0] in ("project", "user"):
        holder, condition = f"project:{scope.group('name').strip().lower()}", ""
    named = _PROJECT_SCOPE.match(condition) if condition else None
    if named and holder.split(":")[0] in ("project", "user"):
        # "For the Orion migration project, everyone flies economy": the project's rule, not a situation
        holder, condition = f"project:{named.group('name').strip().lower()}", ""
    if condition and holder.startswith("person:") and about_holder(condition, holder):
        # "Tom always wants the window when he flies", "when you book for Sam, remember she expects ...":
        # the person's own doing names whose rule it is, not a situation within it
        condition = ""
    low = clause.lower()
    statement = True
    if sentence.rstrip().endswith("?") and not _QUESTION_OK.search(sentence):
        statement = False
    if _HEDGE.search(_APPROXIMATE.sub(" ", clause)) and not _DESIRE.search(re.sub(_HEDGE, "", clause)):
        statement = False
    # a wish in the main clause, not in its condition, and not the "always" of "almost always"
    # (a wish in a comma clause of its own after the habit says why: "I tend to pay by debit, I don't
    # like running up credit")
    wish = _DESIRE.search(_HABIT.sub(" ", rest))
    habit_wish = _DESIRE.search(_HABIT.sub(" ", _OWN_CLAUSE_AFTER.split(rest, maxsplit=1)[0]))
    if holder.split(":")[0] in ("project", "team") and (
        _DECISION.search(clause) or not _HABIT.search(clause)
    ):
        # what a team or a project wants is its decision ("Legal wants ...", "The department switched to
        # APA"); what it usually does is its habit
        kind = "decision"
    elif _HABIT.search(clause) and not habit_wish:
        kind = "habit"
    elif _ATTRIBUTE.search(clause) and not wish:
        kind = "attribute"
    else:
        kind = "preference"
    main = re.split(r"\b(?:that|which|who)\b", clause, maxsplit=1)[0]
    one_off = bool(
        _ONE_OFF.search(clause) or _THIS_TASK.search(clause) or _TODAY.search(main)
    ) and not re.search(r"\bfrom now on\b|\bgoing forward\b", low)
    if one_off and kind in ("preference",):
        kind = "requirement"
    if one_off and condition and (_ONE_OFF.search(condition) or _THIS_TASK.search(condition)):
        # "Only for today's lunch: pickup": the phrase that makes it a one-off is this task, not a
        # situation within it
        condition = ""
    withdraws = bool(_WITHDRAW.search(clause))
    old = _OLD_VALUE.search(clause)
    changed = None if old else _CHANGED_FROM.search(clause)
    return Clause(
        text=rest,
        sentence=sentence,
        holder=holder,
        kind=kind,
        lasting=not one_off,
        condition=condition,
        withdraws=withdraws,
        negated_spans=negated_spans(clause),
        old_values_text=(old.group("old") or old.group("doing"))
        if old
        else changed.group("old")
        if changed
        else "",
        old_paired=changed is not None,
        statement=statement,
        rejected_text=rejected_text(clause),
    )


def one_off_alone(sentence: str) -> bool:
    """The sentence says only that something is for this task ("Just for tonight though.", "This time
    only."): a one-off cue and function words, nothing else."""
    cue = _ONE_OFF.search(sentence) or _THIS_TASK.search(sentence) or _TODAY.search(sentence)
    if cue is None:
        return False
    rest = _THIS_TASK.sub(" ", _ONE_OFF.sub(" ", sentence))
    rest = _TODAY.sub(" ", rest)
    return not re.sub(
        r"\b(?:just|only|though|please|and|but|so|ok|okay|for|this|time|once|mind you|remember)\b|[^\w]",
        "",
        rest,
        flags=re.I,
    ).strip()


def has_lasting_cue(text: str) -> bool:
    return bool(_LASTING.search(text))
