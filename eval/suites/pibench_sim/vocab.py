"""Domain vocabularies for `pibench_sim`: the five π-Bench professional personas.

Each persona: tools (argument -> allowed values; the first value is the *default*, what an agent
guesses when nothing informs it), which arguments are project decisions, project names, the
persona's occupation (its world profile attribute) and, per service, what its past work was about
(`objects`: the objects of the year-long tool-call history that `data_gen.world.history` generates
for the persona; see eval/suites/generator.py). The domains (research writing, marketing, pharmacy,
law, finance) are disjoint from the training data's consumer web domains, so the suite measures
transfer, not memorisation.
"""

from __future__ import annotations

# tool: (service, description, {param: values}, records_decision)
PERSONAS: dict[str, dict] = {
    "researcher": {
        "occupation": "researcher",
        "objects": {
            "docs": ("a grant report section", "a paper introduction", "a related-work section", "a review"),
            "plots": ("an ablation figure", "a training-curve plot", "a results figure"),
            "tracking": ("a baseline run", "a hyperparameter sweep", "an ablation run"),
            "email": ("a progress update to the PI", "a note to co-authors", "a reply to a reviewer"),
        },
        "role": "ML researcher writing papers, grant reports and reviews",
        "projects": ["grant-report", "neurips-paper"],
        "project_slots": ["latex_template", "tracker"],
        "tools": {
            "write_section": (
                "docs",
                "Draft a document section.",
                {
                    "citation_style": ["APA", "IEEE", "ACM", "Nature"],
                    "latex_template": ["article", "neurips", "acl", "revtex"],
                },
                False,
            ),
            "make_figure": (
                "plots",
                "Render a figure from results.",
                {"figure_format": ["png", "pdf", "svg"], "palette": ["default", "colorblind", "grayscale"]},
                False,
            ),
            "log_experiment": (
                "tracking",
                "Log an experiment run.",
                {
                    "tracker": ["tensorboard", "wandb", "mlflow"],
                    "seed_policy": ["fixed", "three_seeds", "five_seeds"],
                },
                False,
            ),
            "send_update": (
                "email",
                "Email a progress update.",
                {"tone": ["neutral", "concise", "detailed"], "language": ["en", "zh", "de"]},
                False,
            ),
            "approve_plan": (
                "project",
                "Record a project decision.",
                {
                    "latex_template": ["article", "neurips", "acl", "revtex"],
                    "tracker": ["tensorboard", "wandb", "mlflow"],
                },
                True,
            ),
        },
    },
    "marketer": {
        "occupation": "marketer",
        "objects": {
            "social": ("a product teaser", "a customer story", "an event announcement"),
            "slides": ("a campaign pitch deck", "a quarterly review deck", "an agency brief"),
            "ads": ("a retargeting campaign", "a launch campaign", "a seasonal promotion"),
            "docs": ("a campaign performance report", "a channel comparison", "a weekly metrics summary"),
        },
        "role": "brand marketer running campaigns across channels",
        "projects": ["spring-launch", "loyalty-program"],
        "project_slots": ["brand_palette", "audience"],
        "tools": {
            "draft_post": (
                "social",
                "Draft a social post.",
                {
                    "channel": ["instagram", "linkedin", "x", "rednote"],
                    "tone": ["neutral", "playful", "formal"],
                },
                False,
            ),
            "build_deck": (
                "slides",
                "Build a campaign deck.",
                {"brand_palette": ["default", "pastel", "mono", "neon"], "deck_length": ["10", "5", "20"]},
                False,
            ),
            "schedule_campaign": (
                "ads",
                "Schedule a campaign.",
                {
                    "audience": ["general", "students", "parents", "professionals"],
                    "post_time": ["09:00", "12:00", "18:00", "21:00"],
                },
                False,
            ),
            "write_report": (
                "docs",
                "Write a performance report.",
                {"report_format": ["doc", "slides", "sheet"], "kpi": ["ctr", "roi", "reach"]},
                False,
            ),
            "approve_plan": (
                "project",
                "Record a project decision.",
                {
                    "brand_palette": ["default", "pastel", "mono", "neon"],
                    "audience": ["general", "students", "parents", "professionals"],
                },
                True,
            ),
        },
    },
    "pharmacist": {
        "occupation": "pharmacist",
        "objects": {
            "drugdb": (
                "a warfarin interaction check",
                "a polypharmacy check",
                "an antibiotic interaction check",
            ),
            "docs": ("an inhaler leaflet", "an anticoagulant leaflet", "a discharge leaflet"),
            "calc": ("a paediatric dose table", "a renal dose table", "a vancomycin dose table"),
            "calendar": ("a ward medication review", "a clinic follow-up review", "a stewardship audit"),
        },
        "role": "hospital pharmacist preparing medication reviews and patient leaflets",
        "projects": ["ward-7-review", "antibiotic-stewardship"],
        "project_slots": ["formulary", "review_cycle"],
        "tools": {
            "check_interactions": (
                "drugdb",
                "Check drug interactions.",
                {
                    "interaction_db": ["lexicomp", "micromedex", "bnf"],
                    "severity_floor": ["all", "moderate", "major"],
                },
                False,
            ),
            "write_leaflet": (
                "docs",
                "Write a patient leaflet.",
                {"reading_level": ["standard", "plain", "technical"], "language": ["en", "es", "zh"]},
                False,
            ),
            "dose_table": (
                "calc",
                "Compute a dose table.",
                {"dose_unit": ["mg", "mcg", "mg_per_kg"], "formulary": ["national", "hospital", "regional"]},
                False,
            ),
            "plan_review": (
                "calendar",
                "Plan a medication review.",
                {"review_cycle": ["monthly", "weekly", "quarterly"], "reminder": ["email", "sms", "none"]},
                False,
            ),
            "approve_plan": (
                "project",
                "Record a project decision.",
                {
                    "formulary": ["national", "hospital", "regional"],
                    "review_cycle": ["monthly", "weekly", "quarterly"],
                },
                True,
            ),
        },
    },
    "law_trainee": {
        "occupation": "law trainee",
        "objects": {
            "docs": ("a research memo", "a case summary memo", "an advice note"),
            "research": ("a case-law search", "a precedent search", "a statute lookup"),
            "dms": ("a signed engagement letter", "a draft contract", "a court filing"),
            "email": (
                "an update to the supervising partner",
                "a question to the partner",
                "a research summary",
            ),
        },
        "role": "law trainee drafting memos and case research",
        "projects": ["lease-dispute", "merger-due-diligence"],
        "project_slots": ["jurisdiction", "research_db"],
        "tools": {
            "draft_memo": (
                "docs",
                "Draft a legal memo.",
                {
                    "citation_format": ["bluebook", "oscola", "mcgill"],
                    "memo_length": ["standard", "short", "long"],
                },
                False,
            ),
            "search_cases": (
                "research",
                "Search case law.",
                {
                    "research_db": ["westlaw", "lexisnexis", "bailii"],
                    "jurisdiction": ["federal", "ny", "uk", "eu"],
                },
                False,
            ),
            "file_document": (
                "dms",
                "File a document in the DMS.",
                {"doc_format": ["docx", "pdf", "odt"], "access": ["team", "private", "firm"]},
                False,
            ),
            "email_partner": (
                "email",
                "Email the supervising partner.",
                {"tone": ["neutral", "formal", "brief"], "attach_format": ["pdf", "docx"]},
                False,
            ),
            "approve_plan": (
                "project",
                "Record a project decision.",
                {
                    "jurisdiction": ["federal", "ny", "uk", "eu"],
                    "research_db": ["westlaw", "lexisnexis", "bailii"],
                },
                True,
            ),
        },
    },
    "financier": {
        "occupation": "financial analyst",
        "objects": {
            "sheets": ("a revenue forecast model", "a cash-flow model", "a valuation model"),
            "docs": ("a portfolio risk report", "a stress-test report", "a liquidity report"),
            "plots": ("a price chart", "a returns chart", "an allocation chart"),
            "email": ("an investor brief", "a monthly client letter", "a market note"),
        },
        "role": "financial analyst building models and investor reports",
        "projects": ["q3-forecast", "portfolio-rebalance"],
        "project_slots": ["currency", "risk_metric"],
        "tools": {
            "build_model": (
                "sheets",
                "Build a financial model.",
                {"model_tool": ["excel", "python", "sheets"], "currency": ["usd", "eur", "gbp", "cny"]},
                False,
            ),
            "risk_report": (
                "docs",
                "Write a risk report.",
                {"risk_metric": ["var", "cvar", "drawdown"], "period": ["quarterly", "monthly", "annual"]},
                False,
            ),
            "make_chart": (
                "plots",
                "Make a chart.",
                {
                    "chart_type": ["line", "bar", "candlestick"],
                    "number_format": ["plain", "thousands", "millions"],
                },
                False,
            ),
            "send_brief": (
                "email",
                "Send an investor brief.",
                {"tone": ["neutral", "concise", "detailed"], "attach_format": ["pdf", "xlsx"]},
                False,
            ),
            "approve_plan": (
                "project",
                "Record a project decision.",
                {"currency": ["usd", "eur", "gbp", "cny"], "risk_metric": ["var", "cvar", "drawdown"]},
                True,
            ),
        },
    },
}
