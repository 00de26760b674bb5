// Suspicion report types per jurisdiction (Part 2 "Report type"): the FIU each is filed with, its form fields,
// its narrative rule and the deadline its rules set. Pure data; sources cited per entry (see docs/reports.md).
//
// Deadline defaults (`source: system_default`) are the number of calendar days Caravan counts from the day the
// report is drafted (the suspicion is formed when an officer rejects the case). Where a rule counts business
// days, the same number of calendar days is used (never later than the rule). Where a rule says "promptly",
// "without delay", "immediately" or "as soon as practicable" and sets no number, Caravan's default is a short,
// documented internal deadline (PROMPT_DAYS); a company sets its own with an active `str` threshold for the
// jurisdiction (`filingDeadlineDays`), which then wins (`source: threshold`).
//
// Verification: each entry's `sources` are the pages where the FIU's name and the reporting rule were found (public
// statute texts, FIU and supervisor pages, law-firm summaries; looked up in November 2026). Where a fact could not
// be confirmed there, the entry keeps its value and says `unverified` in a comment next to it (docs/reports.md
// lists them). None of this is legal advice: a company sets its own deadline with an `str` threshold.

export type FieldType = "text" | "textarea" | "date" | "country" | "amount" | "select" | "boolean";

export interface ReportField {
  key: string;
  label: string;
  type: FieldType;
  /** About the subject: masked without pii:view. */
  pii: boolean;
  /** Needed before the report is filing-ready (not part of the API shape; see docs/reports.md). */
  required: boolean;
}

export interface ReportTypeDefinition {
  jurisdiction: string;
  /** Short name used in report numbers: SAR, STR, SMR, UTR... */
  abbreviation: string;
  label: string;
  /** The financial intelligence unit the report is filed with; null for the generic type. */
  reportTo: string | null;
  narrativeMinLength: number;
  /** Default filing deadline in calendar days. */
  deadlineDays: number;
  regulation: string;
  regulatoryBody: string;
  /** Where the FIU name and the deadline come from (checked while building the catalogue). */
  sources: string[];
  /** Fields beyond the common ones. */
  extraFields: ReportField[];
}

/** The internal default for rules that say "promptly" or "without delay" without a number of days. */
export const PROMPT_DAYS = 3;
/** Narrative minimum of every type unless the jurisdiction's form asks for more. */
export const DEFAULT_NARRATIVE_MIN = 50;

const f = (key: string, label: string, type: FieldType, pii: boolean, required: boolean): ReportField => ({ key, label, type, pii, required });

/** Every report type has these: filing institution, subject, counterparty, transaction. */
export const COMMON_FIELDS: readonly ReportField[] = [
  f("filingInstitutionName", "Filing institution", "text", false, true),
  f("filingInstitutionCountry", "Filing institution country", "country", false, true),
  f("filingInstitutionIdentifier", "Filing institution identifier (LEI or registration number)", "text", false, false),
  f("contactOfficer", "Reporting officer (MLRO) name and contact", "text", false, true),
  f("subjectName", "Subject name", "text", true, true),
  f("subjectDateOfBirth", "Subject date of birth or incorporation", "date", true, false),
  f("subjectNationality", "Subject nationality or country of incorporation", "country", true, false),
  f("subjectAddress", "Subject address", "textarea", true, false),
  f("subjectIdentification", "Subject identification document or registration number", "text", true, false),
  f("subjectCustomerId", "Subject customer reference", "text", true, false),
  f("subjectWalletAddress", "Subject wallet address", "text", true, true),
  f("counterpartyName", "Counterparty name", "text", true, false),
  f("counterpartyWalletAddress", "Counterparty wallet address", "text", true, false),
  f("counterpartyVasp", "Counterparty VASP", "text", false, false),
  f("transactionDate", "Transaction date", "date", false, true),
  f("amount", "Amount", "amount", false, true),
  f("asset", "Asset", "text", false, true),
  f("network", "Network", "text", false, true),
  f("transactionHash", "Transaction hash", "text", false, false),
  f("direction", "Direction (outgoing or incoming)", "text", false, true),
];

const EU_FIELDS = [f("goAmlReportCode", "goAML report code (STR or SAR)", "select", false, false)];

/** Types for the jurisdictions Caravan's users meet most, and every EU member state. */
export const REPORT_TYPE_DEFINITIONS: readonly ReportTypeDefinition[] = [
  {
    jurisdiction: "US",
    abbreviation: "SAR",
    label: "Suspicious Activity Report (SAR)",
    reportTo: "Financial Crimes Enforcement Network (FinCEN)",
    narrativeMinLength: 200,
    deadlineDays: 30,
    regulation: "31 CFR 1022.320(b)(3): within 30 calendar days of initial detection",
    regulatoryBody: "FinCEN, U.S. Department of the Treasury",
    sources: ["https://fincen.gov/30-days-time-file", "https://bankersonline.com/articles/107387 (60 days when no suspect is identified)"],
    extraFields: [
      f("subjectTin", "Subject TIN (SSN/EIN)", "text", true, false),
      f("activityStartDate", "Suspicious activity start date", "date", false, true),
      f("activityEndDate", "Suspicious activity end date", "date", false, false),
      f("suspiciousActivityCategory", "Suspicious activity category (FinCEN SAR item 29–40)", "select", false, true),
      f("lawEnforcementContacted", "Law enforcement contacted", "boolean", false, false),
    ],
  },
  {
    jurisdiction: "GB",
    abbreviation: "SAR",
    label: "Suspicious Activity Report (SAR)",
    reportTo: "UK Financial Intelligence Unit, National Crime Agency (NCA)",
    narrativeMinLength: 100,
    deadlineDays: PROMPT_DAYS,
    regulation: "Proceeds of Crime Act 2002 ss.330–331: as soon as is practicable",
    regulatoryBody: "National Crime Agency",
    // Verified: the UKFIU in the NCA is the receiving point; nominated officers report "as soon as is practicable".
    sources: [
      "https://www.legislation.gov.uk/ukpga/2002/29/section/330",
      "https://www.gamblingcommission.gov.uk/for-gambling-businesses/Compliance/General-compliance/AML/The-Prevention-of-Money-Laundering/8-G-External-reporting.aspx (UKFIU within the NCA; as soon as is practicable)",
      "https://www.ukciu.gov.uk/(onkfl245w4mhdf555xu5u1fa)/Information/info.aspx?InfoSection=Legislation (UKFIU, POCA Part 7)",
    ],
    extraFields: [
      f("defenceRequested", "Defence against money laundering (DAML) requested", "boolean", false, true),
      f("glossaryCodes", "NCA SAR glossary codes", "text", false, false),
    ],
  },
  {
    jurisdiction: "CA",
    abbreviation: "STR",
    label: "Suspicious Transaction Report (STR)",
    reportTo: "Financial Transactions and Reports Analysis Centre of Canada (FINTRAC)",
    narrativeMinLength: 100,
    deadlineDays: PROMPT_DAYS,
    regulation: "PCMLTFA s.7 and PCML(TF) Suspicious Transaction Reporting Regulations s.9(2): as soon as practicable",
    regulatoryBody: "FINTRAC",
    // Verified: the 30-day limit was replaced by "as soon as practicable" after the measures that establish the
    // reasonable grounds (FINTRAC treats the STR as a priority report).
    sources: [
      "https://fintrac-canafe.canada.ca/guidance-directives/transaction-operation/str-dod/str-dod-eng",
      "https://jbrucemcmeekinlaw.com/administrative-monetary-penalties/reporting-suspicious-transactions-soon-practicable-meaning/ (s.9(2): as soon as practicable)",
      "https://aumlaw.com/get-ready-to-report-suspicious-transactions-as-soon-as-practicable/ (FINTRAC guidance: priority report)",
    ],
    extraFields: [f("ministerialDirective", "Related ministerial directive", "text", false, false), f("actionTaken", "Action taken (Part G)", "textarea", false, false)],
  },
  {
    jurisdiction: "AU",
    abbreviation: "SMR",
    label: "Suspicious Matter Report (SMR)",
    reportTo: "Australian Transaction Reports and Analysis Centre (AUSTRAC)",
    narrativeMinLength: 100,
    deadlineDays: 3,
    regulation: "AML/CTF Act 2006 s.41(2): within 3 business days (24 hours for terrorism financing)",
    regulatoryBody: "AUSTRAC",
    sources: ["https://www.austrac.gov.au/about-us/amlctf-reform/reforms-guidance/amlctf-program-reform/reporting-austrac-reform", "http://classic.austlii.edu.au/au/legis/cth/consol_act/alacfa2006522/s41.html"],
    extraFields: [f("suspicionGrounds", "Grounds for suspicion (s.41 condition)", "select", false, true), f("terrorismFinancing", "Relates to terrorism financing (24-hour deadline)", "boolean", false, false)],
  },
  {
    jurisdiction: "SG",
    abbreviation: "STR",
    label: "Suspicious Transaction Report (STR)",
    reportTo: "Suspicious Transaction Reporting Office (STRO), Singapore Police Force",
    narrativeMinLength: 100,
    deadlineDays: 15,
    regulation: "MAS Notice PSN02 and its Guidelines para. 16-1, CDSA s.45: promptly, at the latest within 15 business days of discovery",
    regulatoryBody: "Monetary Authority of Singapore",
    // Verified: STRO is a division of the Commercial Affairs Department, SPF; "promptly", at the latest 15 business
    // days from discovery (Guidelines to PSN02 para. 16-1). Caravan counts 15 calendar days: never later than that.
    sources: [
      "https://www.ingenia-consultants.com/suspicious-transaction-reporting/ (STRO; PSN02 Guidelines para. 16-1: 15 business days)",
      "https://www.police.gov.sg/Advisories/Crime/Commercial-Crimes/Suspicious-Transaction-Reporting-Office",
    ],
    extraFields: [],
  },
  {
    jurisdiction: "HK",
    abbreviation: "STR",
    label: "Suspicious Transaction Report (STR)",
    reportTo: "Joint Financial Intelligence Unit (JFIU)",
    narrativeMinLength: 100,
    deadlineDays: PROMPT_DAYS,
    regulation: "OSCO / DTROP s.25A: as soon as it is reasonable to do so",
    regulatoryBody: "Securities and Futures Commission",
    // Verified: s.25A DTROP/OSCO and s.12 UNATMO, report to the JFIU "as soon as it is reasonable".
    sources: [
      "http://www.jfiu.gov.hk/en/str.html (JFIU; as soon as practicable)",
      "https://www.cr.gov.hk/en/amlctf/suspicious-report.htm (as soon as it is reasonable to do so)",
      "https://www.hklawsoc.org.hk/en/Support-Members/Professional-Support/AML/Suspicious-Transaction-Reporting (STREAMS 2)",
    ],
    extraFields: [],
  },
  {
    jurisdiction: "JP",
    abbreviation: "STR",
    label: "Suspicious Transaction Report (STR, 疑わしい取引の届出)",
    reportTo: "Japan Financial Intelligence Center (JAFIC), National Police Agency",
    narrativeMinLength: 50,
    deadlineDays: PROMPT_DAYS,
    regulation: "Act on Prevention of Transfer of Criminal Proceeds art. 8(1): promptly (速やかに), to the competent administrative agency, which passes it to JAFIC",
    regulatoryBody: "Financial Services Agency",
    // Verified: art. 8(1) says 速やかに (promptly); the STR goes to the supervising agency (the FSA for crypto-asset
    // exchange service providers), which forwards it to JAFIC.
    sources: [
      "https://www.npa.go.jp/sosikihanzai/jafic/en/index.htm",
      "http://www.npa.go.jp/sosikihanzai/jafic/todoke/todotop.htm (届出先行政庁)",
      "https://houritsushoku.com/?p=3872 (art. 8(1) text: 速やかに)",
    ],
    extraFields: [],
  },
  {
    jurisdiction: "KR",
    abbreviation: "STR",
    label: "Suspicious Transaction Report (STR, 의심거래보고)",
    reportTo: "Korea Financial Intelligence Unit (KoFIU)",
    narrativeMinLength: 50,
    deadlineDays: 3,
    regulation: "Act on Reporting and Using Specified Financial Transaction Information art. 4; KoFIU supervisory regulation: within 3 business days",
    regulatoryBody: "Financial Services Commission",
    sources: ["https://blockcast.cc/without-cryptocurrency-cash-transaction-real-name-verification-account-is-unnecessary-effective-from-the-25th/", "https://fsc.go.kr/eng/pr010101/82520"],
    extraFields: [],
  },
  {
    jurisdiction: "CH",
    abbreviation: "SAR",
    label: "Suspicious Activity Report (SAR)",
    reportTo: "Money Laundering Reporting Office Switzerland (MROS)",
    narrativeMinLength: 100,
    deadlineDays: PROMPT_DAYS,
    regulation: "Anti-Money Laundering Act (AMLA) art. 9(1): without delay (immediately)",
    regulatoryBody: "FINMA",
    // Verified: art. 9(1) AMLA "shall without delay notify" MROS (fedpol); FINMA and MROS say "immediately".
    sources: [
      "https://www.egris.admin.ch/fedpol/en/home/kriminalitaet/geldwaescherei/rechtliche_grundlagen.html (art. 9(1): without delay)",
      "http://www.ejpd.admin.ch/content/ejpd/en/home/themen/kriminalitaet/ref_geldwaescherei/ref_praxis.html (immediately)",
    ],
    extraFields: [],
  },
  {
    jurisdiction: "AE",
    abbreviation: "STR",
    label: "Suspicious Transaction Report (STR)",
    reportTo: "UAE Financial Intelligence Unit (goAML)",
    narrativeMinLength: 100,
    deadlineDays: PROMPT_DAYS,
    regulation: "Federal Decree-Law No. 20 of 2018 art. 15 (as amended by Decree-Law No. 26 of 2021): without delay",
    regulatoryBody: "UAE Financial Intelligence Unit",
    // Verified: art. 15 requires VASPs among others to inform the FIU "without delay"; reports go through goAML.
    sources: [
      "https://www.uaefiu.gov.ae/en/",
      "https://rulebook.centralbank.ae/en/entiresection/450 (CBUAE STR guidance: legal basis, promptly)",
      "https://ftiuae.com/filing-suspicious-transaction-report-uae-2023.php (art. 15 text: without delay)",
      "https://www.dfsa.ae/what-we-do/aml-ctf-sanctions-compliance/overview-of-dfsa-aml-ctf-sanctions-obligations (goAML)",
    ],
    extraFields: [],
  },
  // European Union: each member state has its own FIU (AMLD (EU) 2015/849 art. 32–33: "promptly").
  ...euStates(),
];

/** EU member states, their FIUs and national rules; art. 33 AMLD requires reports "promptly" unless noted. */
function euStates(): ReportTypeDefinition[] {
  const eu = (jurisdiction: string, reportTo: string, regulation: string, regulatoryBody: string, sources: string[], deadlineDays = PROMPT_DAYS, abbreviation = "STR"): ReportTypeDefinition => ({
    jurisdiction,
    abbreviation,
    label: abbreviation === "UTR" ? "Unusual Transaction Report (UTR)" : abbreviation === "SAR" ? "Suspicious Activity Report (SAR)" : "Suspicious Transaction Report (STR)",
    reportTo,
    narrativeMinLength: DEFAULT_NARRATIVE_MIN,
    deadlineDays,
    regulation,
    regulatoryBody,
    sources: [...sources, "https://eur-lex.europa.eu/eli/dir/2015/849/oj (art. 33: promptly)"],
    extraFields: EU_FIELDS,
  });
  return [
    // FIU verified (FIU in the Federal Criminal Police Office); "without delay" (§ 16 FM-GwG) unverified.
    eu("AT", "Austrian Financial Intelligence Unit (A-FIU, Geldwäschemeldestelle)", "FM-GwG § 16: without delay", "Financial Market Authority (FMA)", [
      "https://cert05external-www.360.lexisnexis.at/d/h_85450_002500_85450_MahrWakounig_HBGel_03d89d8223 (Geldwäschemeldestelle FIU im Bundeskriminalamt)",
    ]),
    // Verified: report before carrying out the transaction, otherwise immediately afterwards.
    eu("BE", "Financial Intelligence Processing Unit (CTIF-CFI)", "Law of 18 September 2017 art. 47–48: before the transaction is carried out, otherwise immediately afterwards", "Financial Services and Markets Authority (FSMA)", [
      "https://ctif-cfi.be/index.php/en/belgian-system/reporting-entities/who-must-report",
      "https://financialcrime.world/posts/belgian-aml-law-reporting-to-ctif-cfi-oversightcombatinc148f91e221558c61623bb30db43c30a (before the transaction)",
    ]),
    // FIU verified; "immediately" (art. 72) unverified.
    eu("BG", "Financial Intelligence Directorate of the State Agency for National Security (FID-SANS)", "Measures Against Money Laundering Act art. 72: immediately", "State Agency for National Security", [
      "http://www.dans.bg/en/msip-091209-menu-en/59-zmip-091209-art-bul",
    ]),
    // FIU verified (Office for the Prevention of Money Laundering, Ministry of Finance); "without delay" unverified.
    eu("HR", "Anti-Money Laundering Office (AMLO, Ured za sprječavanje pranja novca), Ministry of Finance", "AML/CTF Act art. 56: without delay", "Croatian Financial Services Supervisory Agency (HANFA)", [
      "https://www.transparency.hr/en/news-detail/money-laundering-913",
      "https://regalert.today/document/804a79a8-dc03-4392-a55a-bf231f24ba28 (HANFA regulation on reporting to the Office)",
    ]),
    // FIU verified; "promptly" (s.69) unverified.
    eu("CY", "Unit for Combating Money Laundering (MOKAS)", "Law 188(I)/2007 s.69: promptly", "Cyprus Securities and Exchange Commission (CySEC)", [
      "http://www.law.gov.cy/Law/MOKAS/MOKAS.nsf/mokas02_en/mokas02_en?OpenDocument",
    ]),
    // Verified: "without unnecessary delay" (FAU). The 5-calendar-day maximum of s.18(1) is unverified.
    eu("CZ", "Financial Analytical Office (FAU)", "Act No. 253/2008 s.18: without undue delay, at the latest within 5 calendar days", "Financial Analytical Office", [
      "https://fau.gov.cz/en/reporting-obligation (without unnecessary delay)",
    ], 5),
    // Verified: § 26 "omgående" (immediately) to the Hvidvasksekretariatet.
    eu("DK", "Danish Financial Intelligence Unit (Hvidvasksekretariatet, NSK)", "Anti-Money Laundering Act § 26: immediately (omgående)", "Danish Financial Supervisory Authority (Finanstilsynet)", [
      "https://danskelove.dk/hvidvaskloven/26",
      "https://ft.dk/samling/20201/almdel/REU/bilag/400/2434673/index.htm (National enhed for Særlig Kriminalitet)",
    ]),
    // FIU verified; "no later than 2 working days" (§ 49) unverified.
    eu("EE", "Financial Intelligence Unit (Rahapesu Andmebüroo)", "Money Laundering and Terrorist Financing Prevention Act § 49: immediately, no later than 2 working days", "Financial Intelligence Unit", [
      "https://www.riigiteataja.ee/en/eli/ee/Riigikogu/act/524032022001/consolide",
    ], 2),
    // Verified: report to the FIU of the National Bureau of Investigation without delay.
    eu("FI", "Financial Intelligence Unit of the National Bureau of Investigation (RAP)", "Act on Preventing Money Laundering 444/2017 ch. 4 s.1: without delay", "Finnish Financial Supervisory Authority (FIN-FSA)", [
      "https://prod.finanssivalvonta.fi/en/prevention-of-money-laundering-and-terrorist-financing/obligation-to-obtain-information-and-to-report",
      "https://rahanpesu.fi/en/legislation",
    ]),
    // Verified: the déclaration de soupçon is made before the transaction is carried out.
    eu("FR", "TRACFIN", "Code monétaire et financier art. L561-15: before the transaction (déclaration de soupçon)", "Autorité des marchés financiers (AMF)", [
      "https://www.economie.gouv.fr/tracfin/la-declaration-de-soupcon",
    ]),
    // Verified: "unverzüglich" to the FIU, a directorate of the Generalzolldirektion, through goAML.
    eu("DE", "Financial Intelligence Unit (FIU, Zentralstelle für Finanztransaktionsuntersuchungen)", "Geldwäschegesetz (GwG) § 43: without delay (unverzüglich)", "Federal Financial Supervisory Authority (BaFin)", [
      "https://frankfurt-main.ihk.de/standortpolitik/finanzplatz-frankfurt/geldwaeschegesetz-handlungspflichten-fuer-unternehmen/folgen-bei-nichterfuellung-meldepflichten-5248204?print=true&printsrc=button",
      "https://www.geesthacht.de/index.php?ModID=10&FID=2495.581.1&object=tx%2C2495.11",
    ], PROMPT_DAYS, "SAR"),
    // Name corrected: the FIU is Unit A of the Hellenic Anti-Money Laundering Authority. "Without delay" unverified.
    eu("GR", "Hellenic Anti-Money Laundering Authority, Financial Intelligence Unit (HFIU)", "Law 4557/2018 art. 22: without delay", "Hellenic Capital Market Commission", [
      "https://aml-authority.gov.gr/en/authority-for-combating-money-laundering-from-criminal-activities",
    ]),
    // FIU verified (within NAV, the National Tax and Customs Administration); "without delay" unverified.
    eu("HU", "Hungarian Financial Intelligence Unit (HFIU, NAV)", "Act LIII of 2017 s.30: without delay", "Central Bank of Hungary (MNB)", [
      "https://dmonitor.tech/coverage/hungary/",
    ]),
    // Verified: s.42(1)–(2), to FIU Ireland and the Revenue Commissioners, as soon as practicable.
    eu("IE", "Financial Intelligence Unit Ireland (An Garda Síochána) and the Revenue Commissioners", "Criminal Justice (Money Laundering and Terrorist Financing) Act 2010 s.42: as soon as practicable", "Central Bank of Ireland", [
      "https://revisedacts.lawreform.ie/eli/2010/act/6/section/42/revised/en/html",
    ]),
    // Verified: UIF at the Bank of Italy; reports "senza ritardo" through INFOSTAT-UIF.
    eu("IT", "Financial Intelligence Unit for Italy (UIF), Bank of Italy", "Legislative Decree 231/2007 art. 35: without delay", "Bank of Italy", [
      "https://uif.bancaditalia.it/sistema-antiriciclaggio/uif-italia/index.html",
      "https://serviziamministrativi.ddp.it/it/notizie/2011/05/929/antiriciclaggio-in-gu-provvedimento-uif-sulle-modalita-di-segnalazione (senza ritardo)",
    ]),
    // FIU verified (Finanšu izlūkošanas dienests); "without delay" (s.31) unverified.
    eu("LV", "Financial Intelligence Unit of Latvia (FID)", "AML/CTPF Law s.31: without delay", "Bank of Latvia", [
      "https://likumi.lv/ta/en/en/id/178987-law-on-the-prevention-of-money-laundering-and-terrorism-and-proliferation-financing",
    ]),
    // FIU verified (FNTT Money Laundering Prevention Board); "no later than 1 working day" (art. 16) unverified.
    eu("LT", "Financial Crime Investigation Service (FNTT)", "Law on the Prevention of Money Laundering art. 16: immediately, no later than 1 working day", "Bank of Lithuania", [
      "https://fntt.lrv.lt/en/money-laudering-prevention/activites/",
    ], 1),
    // Verified: art. 5(1)(a) "sans délai" to the CRF, through goAML.
    eu("LU", "Cellule de renseignement financier (CRF)", "Law of 12 November 2004 art. 5(1)(a): without delay (sans délai)", "Commission de Surveillance du Secteur Financier (CSSF)", [
      "https://pfi.public.lu/fr/actualites/2017/07/goAML.html",
      "https://justice.public.lu/fr/organisation-justice/crf.html",
    ]),
    // Corrected: the 5-working-day period was abolished in 2020; reg. 15(3) now says "promptly" and the FIAU's
    // Implementing Procedures want the STR on the day the MLRO determines the suspicion (1 day here).
    eu("MT", "Financial Intelligence Analysis Unit (FIAU)", "PMLFTR reg. 15(3) (amended 2020): promptly; FIAU Implementing Procedures: on the day the MLRO determines the suspicion", "Financial Intelligence Analysis Unit (FIAU)", [
      "http://webiis06.mondaq.com/money-laundering/985826/financial-intelligence-analysis-unit-fiau-publishes-revised-version-of-the-implementing-procedures-part-i?type=related",
      "https://www.maltachamber.org.mt/en/fiau-issues-tight-deadlines-for-suspicious-transaction-reporting",
    ], 1),
    // Verified: Wwft art. 16(1), "onverwijld" after the unusual nature became known.
    eu("NL", "Financial Intelligence Unit – the Netherlands (FIU-Nederland)", "Wwft art. 16(1): without delay (onverwijld) once the unusual nature is known (unusual transaction report)", "De Nederlandsche Bank (DNB)", [
      "https://www.customerdiligence.nl/wat-betekent-onverwijld-ongebruikelijke-transacties-melden/",
      "https://www.fiu-nederland.nl/en/?p=3301",
    ], PROMPT_DAYS, "UTR"),
    // FIU verified (GIIF, the Department of Financial Information of the Ministry of Finance); "no later than
    // 2 business days" (art. 74) unverified.
    eu("PL", "General Inspector of Financial Information (GIIF)", "AML/CTF Act of 1 March 2018 art. 74: immediately, no later than 2 business days", "Polish Financial Supervision Authority (KNF)", [
      "https://gov.pl/web/finance/aml-cft",
    ], 2, "SAR"),
    // Verified: art. 43(1), "de imediato", to the DCIAP and the UIF of the Polícia Judiciária.
    eu("PT", "Financial Information Unit (UIF), Polícia Judiciária, and DCIAP", "Law 83/2017 art. 43: immediately (de imediato)", "Banco de Portugal", [
      "https://uif.policiajudiciaria.pt/deveres-das-entidades-obrigadas/",
      "https://portalbcft.pt/node/1171",
    ]),
    // FIU verified (ONPCSB); "within 24 hours" (art. 6) unverified.
    eu("RO", "National Office for Prevention and Control of Money Laundering (ONPCSB)", "Law 129/2019 art. 6: immediately, within 24 hours", "National Office for Prevention and Control of Money Laundering", [
      "https://www.ionescu-asociatii.ro/en/law-no-129-from-2019-referring-to-prevention-and-control-of-money-laundering-improvements-reporter-account/",
    ], 1),
    // Verified: § 17(1), "bez zbytočného odkladu" to the FSJ.
    eu("SK", "Financial Intelligence Unit (FSJ), Police Force", "Act No. 297/2008 § 17(1): without undue delay", "National Bank of Slovakia", [
      "https://finance.gov.sk/en/finance/financial-market/eu-un-sanctions/anti-money-laundering/",
      "https://www.minv.sk/?vzory-hlaseni-o-noo",
    ]),
    // FIU verified (OMLP); the reporting rule of ZPPDFT-2 art. 69 is unverified.
    eu("SI", "Office for Money Laundering Prevention (OMLP, Urad za preprečevanje pranja denarja)", "ZPPDFT-2 art. 69: before the transaction, or within 3 days", "Securities Market Agency", [
      "https://www.bsi.si/en/banking-supervision/aml-cft",
    ]),
    // Verified: art. 18 Law 10/2010, "without delay", to Sepblac.
    eu("ES", "Executive Service of the Commission for the Prevention of Money Laundering (SEPBLAC)", "Law 10/2010 art. 18: without delay", "Banco de España / CNMV", [
      "https://www.sepblac.es/en/obliged-subjects/formalities/suspicious-transactions-reporting/",
    ]),
    // Verified: reports to Finanspolisen "utan dröjsmål".
    eu("SE", "Swedish Financial Intelligence Unit (Finanspolisen)", "Money Laundering Act (2017:630) ch. 4 § 3: without delay", "Finansinspektionen", [
      "https://www.ekobrottsmyndigheten.se/lag-och-ratt/brottsrubriseringar/penningtvatt/penningtvatt-lagar/",
    ]),
  ];
}
