"""PostgreSQL 15's operator catalogs for what Cumulo implements (generated: do not edit).

Written by tools/gen_pgoperators.py from a throwaway PostgreSQL 15 and a running Cumulo:
pg_operator rows whose operator Cumulo binds to PostgreSQL's result type, the operator
classes of the types Cumulo has with their families, and those families' pg_amop rows
(for kept operators) and pg_amproc rows. Functions are written name:oid.
"""

# oid name kind canmerge canhash left right result com negate code rest join
OPERATORS = """
15 = b t t 23 20 16 416 36 int48eq:852 eqsel:101 eqjoinsel:105
36 <> b f f 23 20 16 417 15 int48ne:853 neqsel:102 neqjoinsel:106
37 < b f f 23 20 16 419 82 int48lt:854 scalarltsel:103 scalarltjoinsel:107
58 < b f f 16 16 16 59 1695 boollt:56 scalarltsel:103 scalarltjoinsel:107
59 > b f f 16 16 16 58 1694 boolgt:57 scalargtsel:104 scalargtjoinsel:108
76 > b f f 23 20 16 418 80 int48gt:855 scalargtsel:104 scalargtjoinsel:108
80 <= b f f 23 20 16 430 76 int48le:856 scalarlesel:336 scalarlejoinsel:386
82 >= b f f 23 20 16 420 37 int48ge:857 scalargesel:337 scalargejoinsel:398
85 <> b f f 16 16 16 85 91 boolne:84 neqsel:102 neqjoinsel:106
91 = b t t 16 16 16 91 85 booleq:60 eqsel:101 eqjoinsel:105
92 = b t t 18 18 16 92 630 chareq:61 eqsel:101 eqjoinsel:105
93 = b t t 19 19 16 93 643 nameeq:62 eqsel:101 eqjoinsel:105
94 = b t t 21 21 16 94 519 int2eq:63 eqsel:101 eqjoinsel:105
95 < b f f 21 21 16 520 524 int2lt:64 scalarltsel:103 scalarltjoinsel:107
96 = b t t 23 23 16 96 518 int4eq:65 eqsel:101 eqjoinsel:105
97 < b f f 23 23 16 521 525 int4lt:66 scalarltsel:103 scalarltjoinsel:107
98 = b t t 25 25 16 98 531 texteq:67 eqsel:101 eqjoinsel:105
254 = b t t 19 25 16 260 259 nameeqtext:240 eqsel:101 eqjoinsel:105
255 < b f f 19 25 16 264 257 namelttext:241 scalarltsel:103 scalarltjoinsel:107
256 <= b f f 19 25 16 263 258 nameletext:242 scalarlesel:336 scalarlejoinsel:386
257 >= b f f 19 25 16 262 255 namegetext:243 scalargesel:337 scalargejoinsel:398
258 > b f f 19 25 16 261 256 namegttext:244 scalargtsel:104 scalargtjoinsel:108
259 <> b f f 19 25 16 265 254 namenetext:245 neqsel:102 neqjoinsel:106
260 = b t t 25 19 16 254 265 texteqname:247 eqsel:101 eqjoinsel:105
261 < b f f 25 19 16 258 263 textltname:248 scalarltsel:103 scalarltjoinsel:107
262 <= b f f 25 19 16 257 264 textlename:249 scalarlesel:336 scalarlejoinsel:386
263 >= b f f 25 19 16 256 261 textgename:250 scalargesel:337 scalargejoinsel:398
264 > b f f 25 19 16 255 262 textgtname:251 scalargtsel:104 scalargtjoinsel:108
265 <> b f f 25 19 16 259 260 textnename:252 neqsel:102 neqjoinsel:106
349 || b f f 5078 5077 5078 0 0 array_append:378 - -
352 = b f t 28 28 16 352 3315 xideq:68 eqsel:101 eqjoinsel:105
353 = b f f 28 23 16 0 3316 xideqint4:1319 eqsel:101 eqjoinsel:105
374 || b f f 5077 5078 5078 0 0 array_prepend:379 - -
375 || b f f 5078 5078 5078 0 0 array_cat:383 - -
385 = b f t 29 29 16 385 0 cideq:69 eqsel:101 eqjoinsel:105
387 = b t t 27 27 16 387 402 tideq:1292 eqsel:101 eqjoinsel:105
402 <> b f f 27 27 16 402 387 tidne:1265 neqsel:102 neqjoinsel:106
410 = b t t 20 20 16 410 411 int8eq:467 eqsel:101 eqjoinsel:105
411 <> b f f 20 20 16 411 410 int8ne:468 neqsel:102 neqjoinsel:106
412 < b f f 20 20 16 413 415 int8lt:469 scalarltsel:103 scalarltjoinsel:107
413 > b f f 20 20 16 412 414 int8gt:470 scalargtsel:104 scalargtjoinsel:108
414 <= b f f 20 20 16 415 413 int8le:471 scalarlesel:336 scalarlejoinsel:386
415 >= b f f 20 20 16 414 412 int8ge:472 scalargesel:337 scalargejoinsel:398
416 = b t t 20 23 16 15 417 int84eq:474 eqsel:101 eqjoinsel:105
417 <> b f f 20 23 16 36 416 int84ne:475 neqsel:102 neqjoinsel:106
418 < b f f 20 23 16 76 430 int84lt:476 scalarltsel:103 scalarltjoinsel:107
419 > b f f 20 23 16 37 420 int84gt:477 scalargtsel:104 scalargtjoinsel:108
420 <= b f f 20 23 16 82 419 int84le:478 scalarlesel:336 scalarlejoinsel:386
430 >= b f f 20 23 16 80 418 int84ge:479 scalargesel:337 scalargejoinsel:398
433 @> b f f 603 600 16 511 0 box_contain_pt:193 contsel:1302 contjoinsel:1303
439 % b f f 20 20 20 0 0 int8mod:945 - -
484 - l f f 0 20 20 0 0 int8um:462 - -
485 << b f f 604 604 16 0 0 poly_left:341 positionsel:1300 positionjoinsel:1301
486 &< b f f 604 604 16 0 0 poly_overleft:342 positionsel:1300 positionjoinsel:1301
487 &> b f f 604 604 16 0 0 poly_overright:343 positionsel:1300 positionjoinsel:1301
488 >> b f f 604 604 16 0 0 poly_right:344 positionsel:1300 positionjoinsel:1301
489 <@ b f f 604 604 16 490 0 poly_contained:345 contsel:1302 contjoinsel:1303
490 @> b f f 604 604 16 489 0 poly_contain:340 contsel:1302 contjoinsel:1303
491 ~= b f f 604 604 16 491 0 poly_same:339 eqsel:101 eqjoinsel:105
492 && b f f 604 604 16 492 0 poly_overlap:346 areasel:139 areajoinsel:140
493 << b f f 603 603 16 0 0 box_left:188 positionsel:1300 positionjoinsel:1301
494 &< b f f 603 603 16 0 0 box_overleft:189 positionsel:1300 positionjoinsel:1301
495 &> b f f 603 603 16 0 0 box_overright:190 positionsel:1300 positionjoinsel:1301
496 >> b f f 603 603 16 0 0 box_right:191 positionsel:1300 positionjoinsel:1301
497 <@ b f f 603 603 16 498 0 box_contained:192 contsel:1302 contjoinsel:1303
498 @> b f f 603 603 16 497 0 box_contain:187 contsel:1302 contjoinsel:1303
499 ~= b f f 603 603 16 499 0 box_same:186 eqsel:101 eqjoinsel:105
500 && b f f 603 603 16 500 0 box_overlap:125 areasel:139 areajoinsel:140
501 >= b f f 603 603 16 505 504 box_ge:126 areasel:139 areajoinsel:140
502 > b f f 603 603 16 504 505 box_gt:127 areasel:139 areajoinsel:140
503 = b f f 603 603 16 503 0 box_eq:128 eqsel:101 eqjoinsel:105
504 < b f f 603 603 16 502 501 box_lt:129 areasel:139 areajoinsel:140
505 <= b f f 603 603 16 501 502 box_le:130 areasel:139 areajoinsel:140
506 >^ b f f 600 600 16 0 0 point_above:131 positionsel:1300 positionjoinsel:1301
507 << b f f 600 600 16 0 0 point_left:132 positionsel:1300 positionjoinsel:1301
508 >> b f f 600 600 16 0 0 point_right:133 positionsel:1300 positionjoinsel:1301
509 <^ b f f 600 600 16 0 0 point_below:134 positionsel:1300 positionjoinsel:1301
510 ~= b f f 600 600 16 510 713 point_eq:135 eqsel:101 eqjoinsel:105
511 <@ b f f 600 603 16 433 0 on_pb:136 contsel:1302 contjoinsel:1303
512 <@ b f f 600 602 16 755 0 on_ppath:137 - -
513 @@ l f f 0 603 600 0 0 box_center:138 - -
514 * b f f 23 23 23 514 0 int4mul:141 - -
517 <-> b f f 600 600 701 517 0 point_distance:991 - -
518 <> b f f 23 23 16 518 96 int4ne:144 neqsel:102 neqjoinsel:106
519 <> b f f 21 21 16 519 94 int2ne:145 neqsel:102 neqjoinsel:106
520 > b f f 21 21 16 95 522 int2gt:146 scalargtsel:104 scalargtjoinsel:108
521 > b f f 23 23 16 97 523 int4gt:147 scalargtsel:104 scalargtjoinsel:108
522 <= b f f 21 21 16 524 520 int2le:148 scalarlesel:336 scalarlejoinsel:386
523 <= b f f 23 23 16 525 521 int4le:149 scalarlesel:336 scalarlejoinsel:386
524 >= b f f 21 21 16 522 95 int2ge:151 scalargesel:337 scalargejoinsel:398
525 >= b f f 23 23 16 523 97 int4ge:150 scalargesel:337 scalargejoinsel:398
526 * b f f 21 21 21 526 0 int2mul:152 - -
527 / b f f 21 21 21 0 0 int2div:153 - -
528 / b f f 23 23 23 0 0 int4div:154 - -
529 % b f f 21 21 21 0 0 int2mod:155 - -
530 % b f f 23 23 23 0 0 int4mod:156 - -
531 <> b f f 25 25 16 531 98 textne:157 neqsel:102 neqjoinsel:106
532 = b t t 21 23 16 533 538 int24eq:158 eqsel:101 eqjoinsel:105
533 = b t t 23 21 16 532 539 int42eq:159 eqsel:101 eqjoinsel:105
534 < b f f 21 23 16 537 542 int24lt:160 scalarltsel:103 scalarltjoinsel:107
535 < b f f 23 21 16 536 543 int42lt:161 scalarltsel:103 scalarltjoinsel:107
536 > b f f 21 23 16 535 540 int24gt:162 scalargtsel:104 scalargtjoinsel:108
537 > b f f 23 21 16 534 541 int42gt:163 scalargtsel:104 scalargtjoinsel:108
538 <> b f f 21 23 16 539 532 int24ne:164 neqsel:102 neqjoinsel:106
539 <> b f f 23 21 16 538 533 int42ne:165 neqsel:102 neqjoinsel:106
540 <= b f f 21 23 16 543 536 int24le:166 scalarlesel:336 scalarlejoinsel:386
541 <= b f f 23 21 16 542 537 int42le:167 scalarlesel:336 scalarlejoinsel:386
542 >= b f f 21 23 16 541 534 int24ge:168 scalargesel:337 scalargejoinsel:398
543 >= b f f 23 21 16 540 535 int42ge:169 scalargesel:337 scalargejoinsel:398
544 * b f f 21 23 23 545 0 int24mul:170 - -
545 * b f f 23 21 23 544 0 int42mul:171 - -
546 / b f f 21 23 23 0 0 int24div:172 - -
547 / b f f 23 21 23 0 0 int42div:173 - -
550 + b f f 21 21 21 550 0 int2pl:176 - -
551 + b f f 23 23 23 551 0 int4pl:177 - -
552 + b f f 21 23 23 553 0 int24pl:178 - -
553 + b f f 23 21 23 552 0 int42pl:179 - -
554 - b f f 21 21 21 0 0 int2mi:180 - -
555 - b f f 23 23 23 0 0 int4mi:181 - -
556 - b f f 21 23 23 0 0 int24mi:182 - -
557 - b f f 23 21 23 0 0 int42mi:183 - -
558 - l f f 0 23 23 0 0 int4um:212 - -
559 - l f f 0 21 21 0 0 int2um:213 - -
584 - l f f 0 700 700 0 0 float4um:206 - -
585 - l f f 0 701 701 0 0 float8um:220 - -
586 + b f f 700 700 700 586 0 float4pl:204 - -
587 - b f f 700 700 700 0 0 float4mi:205 - -
588 / b f f 700 700 700 0 0 float4div:203 - -
589 * b f f 700 700 700 589 0 float4mul:202 - -
591 + b f f 701 701 701 591 0 float8pl:218 - -
592 - b f f 701 701 701 0 0 float8mi:219 - -
593 / b f f 701 701 701 0 0 float8div:217 - -
594 * b f f 701 701 701 594 0 float8mul:216 - -
596 |/ l f f 0 701 701 0 0 dsqrt:230 - -
597 ||/ l f f 0 701 701 0 0 dcbrt:231 - -
606 <-> b f f 603 600 701 615 0 dist_bp:357 - -
607 = b t t 26 26 16 607 608 oideq:184 eqsel:101 eqjoinsel:105
608 <> b f f 26 26 16 608 607 oidne:185 neqsel:102 neqjoinsel:106
609 < b f f 26 26 16 610 612 oidlt:716 scalarltsel:103 scalarltjoinsel:107
610 > b f f 26 26 16 609 611 oidgt:1638 scalargtsel:104 scalargtjoinsel:108
611 <= b f f 26 26 16 612 610 oidle:717 scalarlesel:336 scalarlejoinsel:386
612 >= b f f 26 26 16 611 609 oidge:1639 scalargesel:337 scalargejoinsel:398
613 <-> b f f 600 628 701 760 0 dist_pl:725 - -
614 <-> b f f 600 601 701 761 0 dist_ps:363 - -
615 <-> b f f 600 603 701 606 0 dist_pb:364 - -
616 <-> b f f 601 628 701 762 0 dist_sl:727 - -
617 <-> b f f 601 603 701 763 0 dist_sb:365 - -
618 <-> b f f 600 602 701 784 0 dist_ppath:371 - -
620 = b t t 700 700 16 620 621 float4eq:287 eqsel:101 eqjoinsel:105
621 <> b f f 700 700 16 621 620 float4ne:288 neqsel:102 neqjoinsel:106
622 < b f f 700 700 16 623 625 float4lt:289 scalarltsel:103 scalarltjoinsel:107
623 > b f f 700 700 16 622 624 float4gt:291 scalargtsel:104 scalargtjoinsel:108
624 <= b f f 700 700 16 625 623 float4le:290 scalarlesel:336 scalarlejoinsel:386
625 >= b f f 700 700 16 624 622 float4ge:292 scalargesel:337 scalargejoinsel:398
630 <> b f f 18 18 16 630 92 charne:70 neqsel:102 neqjoinsel:106
631 < b f f 18 18 16 633 634 charlt:1246 scalarltsel:103 scalarltjoinsel:107
632 <= b f f 18 18 16 634 633 charle:72 scalarlesel:336 scalarlejoinsel:386
633 > b f f 18 18 16 631 632 chargt:73 scalargtsel:104 scalargtjoinsel:108
634 >= b f f 18 18 16 632 631 charge:74 scalargesel:337 scalargejoinsel:398
639 ~ b f f 19 25 16 0 640 nameregexeq:79 regexeqsel:1818 regexeqjoinsel:1824
640 !~ b f f 19 25 16 0 639 nameregexne:1252 regexnesel:1821 regexnejoinsel:1827
641 ~ b f f 25 25 16 0 642 textregexeq:1254 regexeqsel:1818 regexeqjoinsel:1824
642 !~ b f f 25 25 16 0 641 textregexne:1256 regexnesel:1821 regexnejoinsel:1827
643 <> b f f 19 19 16 643 93 namene:659 neqsel:102 neqjoinsel:106
644 <> b f f 30 30 16 644 649 oidvectorne:619 neqsel:102 neqjoinsel:106
645 < b f f 30 30 16 646 648 oidvectorlt:677 scalarltsel:103 scalarltjoinsel:107
646 > b f f 30 30 16 645 647 oidvectorgt:681 scalargtsel:104 scalargtjoinsel:108
647 <= b f f 30 30 16 648 646 oidvectorle:678 scalarlesel:336 scalarlejoinsel:386
648 >= b f f 30 30 16 647 645 oidvectorge:680 scalargesel:337 scalargejoinsel:398
649 = b t t 30 30 16 649 644 oidvectoreq:679 eqsel:101 eqjoinsel:105
654 || b f f 25 25 25 0 0 textcat:1258 - -
660 < b f f 19 19 16 662 663 namelt:655 scalarltsel:103 scalarltjoinsel:107
661 <= b f f 19 19 16 663 662 namele:656 scalarlesel:336 scalarlejoinsel:386
662 > b f f 19 19 16 660 661 namegt:657 scalargtsel:104 scalargtjoinsel:108
663 >= b f f 19 19 16 661 660 namege:658 scalargesel:337 scalargejoinsel:398
664 < b f f 25 25 16 666 667 text_lt:740 scalarltsel:103 scalarltjoinsel:107
665 <= b f f 25 25 16 667 666 text_le:741 scalarlesel:336 scalarlejoinsel:386
666 > b f f 25 25 16 664 665 text_gt:742 scalargtsel:104 scalargtjoinsel:108
667 >= b f f 25 25 16 665 664 text_ge:743 scalargesel:337 scalargejoinsel:398
670 = b t t 701 701 16 670 671 float8eq:293 eqsel:101 eqjoinsel:105
671 <> b f f 701 701 16 671 670 float8ne:294 neqsel:102 neqjoinsel:106
672 < b f f 701 701 16 674 675 float8lt:295 scalarltsel:103 scalarltjoinsel:107
673 <= b f f 701 701 16 675 674 float8le:296 scalarlesel:336 scalarlejoinsel:386
674 > b f f 701 701 16 672 673 float8gt:297 scalargtsel:104 scalargtjoinsel:108
675 >= b f f 701 701 16 673 672 float8ge:298 scalargesel:337 scalargejoinsel:398
684 + b f f 20 20 20 684 0 int8pl:463 - -
685 - b f f 20 20 20 0 0 int8mi:464 - -
686 * b f f 20 20 20 686 0 int8mul:465 - -
687 / b f f 20 20 20 0 0 int8div:466 - -
688 + b f f 20 23 20 692 0 int84pl:1274 - -
689 - b f f 20 23 20 0 0 int84mi:1275 - -
690 * b f f 20 23 20 694 0 int84mul:1276 - -
691 / b f f 20 23 20 0 0 int84div:1277 - -
692 + b f f 23 20 20 688 0 int48pl:1278 - -
693 - b f f 23 20 20 0 0 int48mi:1279 - -
694 * b f f 23 20 20 690 0 int48mul:1280 - -
695 / b f f 23 20 20 0 0 int48div:1281 - -
706 <-> b f f 603 603 701 706 0 box_distance:978 - -
707 <-> b f f 602 602 701 707 0 path_distance:370 - -
708 <-> b f f 628 628 701 708 0 line_distance:239 - -
709 <-> b f f 601 601 701 709 0 lseg_distance:361 - -
712 <-> b f f 604 604 701 712 0 poly_distance:729 - -
713 <> b f f 600 600 16 713 510 point_ne:988 neqsel:102 neqjoinsel:106
731 + b f f 600 600 600 731 0 point_add:1441 - -
732 - b f f 600 600 600 0 0 point_sub:1442 - -
733 * b f f 600 600 600 733 0 point_mul:1443 - -
734 / b f f 600 600 600 0 0 point_div:1444 - -
735 + b f f 602 602 602 735 0 path_add:1435 - -
736 + b f f 602 600 602 0 0 path_add_pt:1436 - -
737 - b f f 602 600 602 0 0 path_sub_pt:1437 - -
738 * b f f 602 600 602 0 0 path_mul_pt:1438 - -
739 / b f f 602 600 602 0 0 path_div_pt:1439 - -
755 @> b f f 602 600 16 512 0 path_contain_pt:1426 - -
756 <@ b f f 600 604 16 757 0 pt_contained_poly:1429 contsel:1302 contjoinsel:1303
757 @> b f f 604 600 16 756 0 poly_contain_pt:1428 contsel:1302 contjoinsel:1303
758 <@ b f f 600 718 16 759 0 pt_contained_circle:1478 contsel:1302 contjoinsel:1303
759 @> b f f 718 600 16 758 0 circle_contain_pt:1477 contsel:1302 contjoinsel:1303
760 <-> b f f 628 600 701 613 0 dist_lp:702 - -
761 <-> b f f 601 600 701 614 0 dist_sp:380 - -
762 <-> b f f 628 601 701 616 0 dist_ls:704 - -
763 <-> b f f 603 601 701 617 0 dist_bs:381 - -
784 <-> b f f 602 600 701 618 0 dist_pathp:421 - -
792 = b f f 602 602 16 792 0 path_n_eq:984 eqsel:101 eqjoinsel:105
793 < b f f 602 602 16 794 0 path_n_lt:982 - -
794 > b f f 602 602 16 793 0 path_n_gt:983 - -
795 <= b f f 602 602 16 796 0 path_n_le:985 - -
796 >= b f f 602 602 16 795 0 path_n_ge:986 - -
797 # l f f 0 602 23 0 0 path_npoints:1432 - -
798 ?# b f f 602 602 16 0 0 path_inter:973 - -
799 @-@ l f f 0 602 701 0 0 path_length:987 - -
800 >^ b f f 603 603 16 0 0 box_above_eq:115 positionsel:1300 positionjoinsel:1301
801 <^ b f f 603 603 16 0 0 box_below_eq:116 positionsel:1300 positionjoinsel:1301
802 ?# b f f 603 603 16 0 0 box_overlap:125 areasel:139 areajoinsel:140
803 # b f f 603 603 603 0 0 box_intersect:980 - -
804 + b f f 603 600 603 0 0 box_add:1422 - -
805 - b f f 603 600 603 0 0 box_sub:1423 - -
806 * b f f 603 600 603 0 0 box_mul:1424 - -
807 / b f f 603 600 603 0 0 box_div:1425 - -
808 ?- b f f 600 600 16 808 0 point_horiz:990 - -
809 ?| b f f 600 600 16 809 0 point_vert:989 - -
818 + b f f 20 21 20 822 0 int82pl:837 - -
819 - b f f 20 21 20 0 0 int82mi:838 - -
820 * b f f 20 21 20 824 0 int82mul:839 - -
821 / b f f 20 21 20 0 0 int82div:840 - -
822 + b f f 21 20 20 818 0 int28pl:841 - -
823 - b f f 21 20 20 0 0 int28mi:942 - -
824 * b f f 21 20 20 820 0 int28mul:943 - -
825 / b f f 21 20 20 0 0 int28div:948 - -
900 = b t f 790 790 16 900 901 cash_eq:888 eqsel:101 eqjoinsel:105
901 <> b f f 790 790 16 901 900 cash_ne:889 neqsel:102 neqjoinsel:106
902 < b f f 790 790 16 903 905 cash_lt:890 scalarltsel:103 scalarltjoinsel:107
903 > b f f 790 790 16 902 904 cash_gt:892 scalargtsel:104 scalargtjoinsel:108
904 <= b f f 790 790 16 905 903 cash_le:891 scalarlesel:336 scalarlejoinsel:386
905 >= b f f 790 790 16 904 902 cash_ge:893 scalargesel:337 scalargejoinsel:398
931 << b f f 869 869 16 933 0 network_sub:927 networksel:3560 networkjoinsel:3561
932 <<= b f f 869 869 16 934 0 network_subeq:928 networksel:3560 networkjoinsel:3561
933 >> b f f 869 869 16 931 0 network_sup:929 networksel:3560 networkjoinsel:3561
934 >>= b f f 869 869 16 932 0 network_supeq:930 networksel:3560 networkjoinsel:3561
965 ^ b f f 701 701 701 0 0 dpow:232 - -
969 @@ l f f 0 601 600 0 0 lseg_center:225 - -
971 @@ l f f 0 604 600 0 0 poly_center:227 - -
974 = b f t 1033 1033 16 974 0 aclitemeq:1062 eqsel:101 eqjoinsel:105
1038 ^ b f f 1700 1700 1700 0 0 numeric_power:1739 - -
1054 = b t t 1042 1042 16 1054 1057 bpchareq:1048 eqsel:101 eqjoinsel:105
1055 ~ b f f 1042 25 16 0 1056 bpcharregexeq:1658 regexeqsel:1818 regexeqjoinsel:1824
1056 !~ b f f 1042 25 16 0 1055 bpcharregexne:1659 regexnesel:1821 regexnejoinsel:1827
1057 <> b f f 1042 1042 16 1057 1054 bpcharne:1053 neqsel:102 neqjoinsel:106
1058 < b f f 1042 1042 16 1060 1061 bpcharlt:1049 scalarltsel:103 scalarltjoinsel:107
1059 <= b f f 1042 1042 16 1061 1060 bpcharle:1050 scalarlesel:336 scalarlejoinsel:386
1060 > b f f 1042 1042 16 1058 1059 bpchargt:1051 scalargtsel:104 scalargtjoinsel:108
1061 >= b f f 1042 1042 16 1059 1058 bpcharge:1052 scalargesel:337 scalargejoinsel:398
1070 = b t t 2277 2277 16 1070 1071 array_eq:744 eqsel:101 eqjoinsel:105
1071 <> b f f 2277 2277 16 1071 1070 array_ne:390 neqsel:102 neqjoinsel:106
1072 < b f f 2277 2277 16 1073 1075 array_lt:391 scalarltsel:103 scalarltjoinsel:107
1073 > b f f 2277 2277 16 1072 1074 array_gt:392 scalargtsel:104 scalargtjoinsel:108
1074 <= b f f 2277 2277 16 1075 1073 array_le:393 scalarlesel:336 scalarlejoinsel:386
1075 >= b f f 2277 2277 16 1074 1072 array_ge:396 scalargesel:337 scalargejoinsel:398
1076 + b f f 1082 1186 1114 2551 0 date_pl_interval:2071 - -
1077 - b f f 1082 1186 1114 0 0 date_mi_interval:2072 - -
1093 = b t t 1082 1082 16 1093 1094 date_eq:1086 eqsel:101 eqjoinsel:105
1094 <> b f f 1082 1082 16 1094 1093 date_ne:1091 neqsel:102 neqjoinsel:106
1095 < b f f 1082 1082 16 1097 1098 date_lt:1087 scalarltsel:103 scalarltjoinsel:107
1096 <= b f f 1082 1082 16 1098 1097 date_le:1088 scalarlesel:336 scalarlejoinsel:386
1097 > b f f 1082 1082 16 1095 1096 date_gt:1089 scalargtsel:104 scalargtjoinsel:108
1098 >= b f f 1082 1082 16 1096 1095 date_ge:1090 scalargesel:337 scalargejoinsel:398
1099 - b f f 1082 1082 23 0 0 date_mi:1140 - -
1100 + b f f 1082 23 1082 2555 0 date_pli:1141 - -
1101 - b f f 1082 23 1082 0 0 date_mii:1142 - -
1108 = b t t 1083 1083 16 1108 1109 time_eq:1145 eqsel:101 eqjoinsel:105
1109 <> b f f 1083 1083 16 1109 1108 time_ne:1106 neqsel:102 neqjoinsel:106
1110 < b f f 1083 1083 16 1112 1113 time_lt:1102 scalarltsel:103 scalarltjoinsel:107
1111 <= b f f 1083 1083 16 1113 1112 time_le:1103 scalarlesel:336 scalarlejoinsel:386
1112 > b f f 1083 1083 16 1110 1111 time_gt:1104 scalargtsel:104 scalargtjoinsel:108
1113 >= b f f 1083 1083 16 1111 1110 time_ge:1105 scalargesel:337 scalargejoinsel:398
1116 + b f f 700 701 701 1126 0 float48pl:281 - -
1117 - b f f 700 701 701 0 0 float48mi:282 - -
1118 / b f f 700 701 701 0 0 float48div:280 - -
1119 * b f f 700 701 701 1129 0 float48mul:279 - -
1120 = b t t 700 701 16 1130 1121 float48eq:299 eqsel:101 eqjoinsel:105
1121 <> b f f 700 701 16 1131 1120 float48ne:300 neqsel:102 neqjoinsel:106
1122 < b f f 700 701 16 1133 1125 float48lt:301 scalarltsel:103 scalarltjoinsel:107
1123 > b f f 700 701 16 1132 1124 float48gt:303 scalargtsel:104 scalargtjoinsel:108
1124 <= b f f 700 701 16 1135 1123 float48le:302 scalarlesel:336 scalarlejoinsel:386
1125 >= b f f 700 701 16 1134 1122 float48ge:304 scalargesel:337 scalargejoinsel:398
1126 + b f f 701 700 701 1116 0 float84pl:285 - -
1127 - b f f 701 700 701 0 0 float84mi:286 - -
1128 / b f f 701 700 701 0 0 float84div:284 - -
1129 * b f f 701 700 701 1119 0 float84mul:283 - -
1130 = b t t 701 700 16 1120 1131 float84eq:305 eqsel:101 eqjoinsel:105
1131 <> b f f 701 700 16 1121 1130 float84ne:306 neqsel:102 neqjoinsel:106
1132 < b f f 701 700 16 1123 1135 float84lt:307 scalarltsel:103 scalarltjoinsel:107
1133 > b f f 701 700 16 1122 1134 float84gt:309 scalargtsel:104 scalargtjoinsel:108
1134 <= b f f 701 700 16 1125 1133 float84le:308 scalarlesel:336 scalarlejoinsel:386
1135 >= b f f 701 700 16 1124 1132 float84ge:310 scalargesel:337 scalargejoinsel:398
1201 = b t t 869 869 16 1201 1202 network_eq:920 eqsel:101 eqjoinsel:105
1202 <> b f f 869 869 16 1202 1201 network_ne:925 neqsel:102 neqjoinsel:106
1203 < b f f 869 869 16 1205 1206 network_lt:921 scalarltsel:103 scalarltjoinsel:107
1204 <= b f f 869 869 16 1206 1205 network_le:922 scalarlesel:336 scalarlejoinsel:386
1205 > b f f 869 869 16 1203 1204 network_gt:923 scalargtsel:104 scalargtjoinsel:108
1206 >= b f f 869 869 16 1204 1203 network_ge:924 scalargesel:337 scalargejoinsel:398
1207 ~~ b f f 19 25 16 0 1208 namelike:858 likesel:1819 likejoinsel:1825
1208 !~~ b f f 19 25 16 0 1207 namenlike:859 nlikesel:1822 nlikejoinsel:1828
1209 ~~ b f f 25 25 16 0 1210 textlike:850 likesel:1819 likejoinsel:1825
1210 !~~ b f f 25 25 16 0 1209 textnlike:851 nlikesel:1822 nlikejoinsel:1828
1211 ~~ b f f 1042 25 16 0 1212 bpcharlike:1631 likesel:1819 likejoinsel:1825
1212 !~~ b f f 1042 25 16 0 1211 bpcharnlike:1632 nlikesel:1822 nlikejoinsel:1828
1220 = b t t 829 829 16 1220 1221 macaddr_eq:830 eqsel:101 eqjoinsel:105
1221 <> b f f 829 829 16 1221 1220 macaddr_ne:835 neqsel:102 neqjoinsel:106
1222 < b f f 829 829 16 1224 1225 macaddr_lt:831 scalarltsel:103 scalarltjoinsel:107
1223 <= b f f 829 829 16 1225 1224 macaddr_le:832 scalarlesel:336 scalarlejoinsel:386
1224 > b f f 829 829 16 1222 1223 macaddr_gt:833 scalargtsel:104 scalargtjoinsel:108
1225 >= b f f 829 829 16 1223 1222 macaddr_ge:834 scalargesel:337 scalargejoinsel:398
1226 ~* b f f 19 25 16 0 1227 nameicregexeq:1240 icregexeqsel:1820 icregexeqjoinsel:1826
1227 !~* b f f 19 25 16 0 1226 nameicregexne:1241 icregexnesel:1823 icregexnejoinsel:1829
1228 ~* b f f 25 25 16 0 1229 texticregexeq:1238 icregexeqsel:1820 icregexeqjoinsel:1826
1229 !~* b f f 25 25 16 0 1228 texticregexne:1239 icregexnesel:1823 icregexnejoinsel:1829
1234 ~* b f f 1042 25 16 0 1235 bpcharicregexeq:1656 icregexeqsel:1820 icregexeqjoinsel:1826
1235 !~* b f f 1042 25 16 0 1234 bpcharicregexne:1657 icregexnesel:1823 icregexnejoinsel:1829
1320 = b t t 1184 1184 16 1320 1321 timestamptz_eq:1152 eqsel:101 eqjoinsel:105
1321 <> b f f 1184 1184 16 1321 1320 timestamptz_ne:1153 neqsel:102 neqjoinsel:106
1322 < b f f 1184 1184 16 1324 1325 timestamptz_lt:1154 scalarltsel:103 scalarltjoinsel:107
1323 <= b f f 1184 1184 16 1325 1324 timestamptz_le:1155 scalarlesel:336 scalarlejoinsel:386
1324 > b f f 1184 1184 16 1322 1323 timestamptz_gt:1157 scalargtsel:104 scalargtjoinsel:108
1325 >= b f f 1184 1184 16 1323 1322 timestamptz_ge:1156 scalargesel:337 scalargejoinsel:398
1327 + b f f 1184 1186 1184 2554 0 timestamptz_pl_interval:1189 - -
1328 - b f f 1184 1184 1186 0 0 timestamptz_mi:1188 - -
1329 - b f f 1184 1186 1184 0 0 timestamptz_mi_interval:1190 - -
1330 = b t t 1186 1186 16 1330 1331 interval_eq:1162 eqsel:101 eqjoinsel:105
1331 <> b f f 1186 1186 16 1331 1330 interval_ne:1163 neqsel:102 neqjoinsel:106
1332 < b f f 1186 1186 16 1334 1335 interval_lt:1164 scalarltsel:103 scalarltjoinsel:107
1333 <= b f f 1186 1186 16 1335 1334 interval_le:1165 scalarlesel:336 scalarlejoinsel:386
1334 > b f f 1186 1186 16 1332 1333 interval_gt:1167 scalargtsel:104 scalargtjoinsel:108
1335 >= b f f 1186 1186 16 1333 1332 interval_ge:1166 scalargesel:337 scalargejoinsel:398
1336 - l f f 0 1186 1186 0 0 interval_um:1168 - -
1337 + b f f 1186 1186 1186 1337 0 interval_pl:1169 - -
1338 - b f f 1186 1186 1186 0 0 interval_mi:1170 - -
1360 + b f f 1082 1083 1114 1363 0 datetime_pl:1272 - -
1363 + b f f 1083 1082 1114 1360 0 timedate_pl:1296 - -
1383 <-> b f f 604 718 701 1523 0 dist_polyc:785 - -
1399 - b f f 1083 1083 1186 0 0 time_mi_time:1690 - -
1420 @@ l f f 0 718 600 0 0 circle_center:1472 - -
1500 = b f f 718 718 16 1500 1501 circle_eq:1462 eqsel:101 eqjoinsel:105
1501 <> b f f 718 718 16 1501 1500 circle_ne:1463 neqsel:102 neqjoinsel:106
1502 < b f f 718 718 16 1503 1505 circle_lt:1464 areasel:139 areajoinsel:140
1503 > b f f 718 718 16 1502 1504 circle_gt:1465 areasel:139 areajoinsel:140
1504 <= b f f 718 718 16 1505 1503 circle_le:1466 areasel:139 areajoinsel:140
1505 >= b f f 718 718 16 1504 1502 circle_ge:1467 areasel:139 areajoinsel:140
1506 << b f f 718 718 16 0 0 circle_left:1454 positionsel:1300 positionjoinsel:1301
1507 &< b f f 718 718 16 0 0 circle_overleft:1455 positionsel:1300 positionjoinsel:1301
1508 &> b f f 718 718 16 0 0 circle_overright:1456 positionsel:1300 positionjoinsel:1301
1509 >> b f f 718 718 16 0 0 circle_right:1457 positionsel:1300 positionjoinsel:1301
1510 <@ b f f 718 718 16 1511 0 circle_contained:1458 contsel:1302 contjoinsel:1303
1511 @> b f f 718 718 16 1510 0 circle_contain:1453 contsel:1302 contjoinsel:1303
1512 ~= b f f 718 718 16 1512 0 circle_same:1452 eqsel:101 eqjoinsel:105
1513 && b f f 718 718 16 1513 0 circle_overlap:1459 areasel:139 areajoinsel:140
1514 |>> b f f 718 718 16 0 0 circle_above:1461 positionsel:1300 positionjoinsel:1301
1515 <<| b f f 718 718 16 0 0 circle_below:1460 positionsel:1300 positionjoinsel:1301
1516 + b f f 718 600 718 0 0 circle_add_pt:1146 - -
1517 - b f f 718 600 718 0 0 circle_sub_pt:1147 - -
1518 * b f f 718 600 718 0 0 circle_mul_pt:1148 - -
1519 / b f f 718 600 718 0 0 circle_div_pt:1149 - -
1520 <-> b f f 718 718 701 1520 0 circle_distance:1471 - -
1521 # l f f 0 604 23 0 0 poly_npoints:1445 - -
1522 <-> b f f 600 718 701 3291 0 dist_pc:1476 - -
1523 <-> b f f 718 604 701 1383 0 dist_cpoly:728 - -
1525 ?# b f f 601 601 16 1525 0 lseg_intersect:994 - -
1526 ?|| b f f 601 601 16 1526 0 lseg_parallel:995 - -
1527 ?-| b f f 601 601 16 1527 0 lseg_perp:996 - -
1528 ?- l f f 0 601 16 0 0 lseg_horizontal:998 - -
1529 ?| l f f 0 601 16 0 0 lseg_vertical:997 - -
1535 = b f f 601 601 16 1535 1586 lseg_eq:999 eqsel:101 eqjoinsel:105
1536 # b f f 601 601 600 1536 0 lseg_interpt:362 - -
1537 ?# b f f 601 628 16 0 0 inter_sl:277 - -
1538 ?# b f f 601 603 16 0 0 inter_sb:373 - -
1539 ?# b f f 628 603 16 0 0 inter_lb:278 - -
1546 <@ b f f 600 628 16 0 0 on_pl:959 - -
1547 <@ b f f 600 601 16 0 0 on_ps:369 - -
1548 <@ b f f 601 628 16 0 0 on_sl:960 - -
1549 <@ b f f 601 603 16 0 0 on_sb:372 - -
1550 = b t t 1266 1266 16 1550 1551 timetz_eq:1352 eqsel:101 eqjoinsel:105
1551 <> b f f 1266 1266 16 1551 1550 timetz_ne:1353 neqsel:102 neqjoinsel:106
1552 < b f f 1266 1266 16 1554 1555 timetz_lt:1354 scalarltsel:103 scalarltjoinsel:107
1553 <= b f f 1266 1266 16 1555 1554 timetz_le:1355 scalarlesel:336 scalarlejoinsel:386
1554 > b f f 1266 1266 16 1552 1553 timetz_gt:1357 scalargtsel:104 scalargtjoinsel:108
1555 >= b f f 1266 1266 16 1553 1552 timetz_ge:1356 scalargesel:337 scalargejoinsel:398
1557 ## b f f 600 628 600 0 0 close_pl:961 - -
1558 ## b f f 600 601 600 0 0 close_ps:366 - -
1559 ## b f f 600 603 600 0 0 close_pb:367 - -
1567 ## b f f 601 603 600 0 0 close_sb:368 - -
1577 ## b f f 628 601 600 0 0 close_ls:1488 - -
1578 ## b f f 601 601 600 0 0 close_lseg:1489 - -
1583 * b f f 1186 701 1186 1584 0 interval_mul:1618 - -
1584 * b f f 701 1186 1186 1583 0 mul_d_interval:1624 - -
1585 / b f f 1186 701 1186 0 0 interval_div:1326 - -
1586 <> b f f 601 601 16 1586 1535 lseg_ne:1482 neqsel:102 neqjoinsel:106
1587 < b f f 601 601 16 1589 1590 lseg_lt:1483 - -
1588 <= b f f 601 601 16 1590 1589 lseg_le:1484 - -
1589 > b f f 601 601 16 1587 1588 lseg_gt:1485 - -
1590 >= b f f 601 601 16 1588 1587 lseg_ge:1486 - -
1591 @-@ l f f 0 601 701 0 0 lseg_length:1487 - -
1611 ?# b f f 628 628 16 1611 0 line_intersect:1495 - -
1612 ?|| b f f 628 628 16 1612 0 line_parallel:1496 - -
1613 ?-| b f f 628 628 16 1613 0 line_perp:1497 - -
1614 ?- l f f 0 628 16 0 0 line_horizontal:1499 - -
1615 ?| l f f 0 628 16 0 0 line_vertical:1498 - -
1616 = b f f 628 628 16 1616 0 line_eq:1492 eqsel:101 eqjoinsel:105
1617 # b f f 628 628 600 1617 0 line_interpt:1494 - -
1625 ~~* b f f 19 25 16 0 1626 nameiclike:1635 iclikesel:1814 iclikejoinsel:1816
1626 !~~* b f f 19 25 16 0 1625 nameicnlike:1636 icnlikesel:1815 icnlikejoinsel:1817
1627 ~~* b f f 25 25 16 0 1628 texticlike:1633 iclikesel:1814 iclikejoinsel:1816
1628 !~~* b f f 25 25 16 0 1627 texticnlike:1634 icnlikesel:1815 icnlikejoinsel:1817
1629 ~~* b f f 1042 25 16 0 1630 bpchariclike:1660 iclikesel:1814 iclikejoinsel:1816
1630 !~~* b f f 1042 25 16 0 1629 bpcharicnlike:1661 icnlikesel:1815 icnlikejoinsel:1817
1694 <= b f f 16 16 16 1695 59 boolle:1691 scalarlesel:336 scalarlejoinsel:386
1695 >= b f f 16 16 16 1694 58 boolge:1692 scalargesel:337 scalargejoinsel:398
1751 - l f f 0 1700 1700 0 0 numeric_uminus:1771 - -
1752 = b t t 1700 1700 16 1752 1753 numeric_eq:1718 eqsel:101 eqjoinsel:105
1753 <> b f f 1700 1700 16 1753 1752 numeric_ne:1719 neqsel:102 neqjoinsel:106
1754 < b f f 1700 1700 16 1756 1757 numeric_lt:1722 scalarltsel:103 scalarltjoinsel:107
1755 <= b f f 1700 1700 16 1757 1756 numeric_le:1723 scalarlesel:336 scalarlejoinsel:386
1756 > b f f 1700 1700 16 1754 1755 numeric_gt:1720 scalargtsel:104 scalargtjoinsel:108
1757 >= b f f 1700 1700 16 1755 1754 numeric_ge:1721 scalargesel:337 scalargejoinsel:398
1758 + b f f 1700 1700 1700 1758 0 numeric_add:1724 - -
1759 - b f f 1700 1700 1700 0 0 numeric_sub:1725 - -
1760 * b f f 1700 1700 1700 1760 0 numeric_mul:1726 - -
1761 / b f f 1700 1700 1700 0 0 numeric_div:1727 - -
1762 % b f f 1700 1700 1700 0 0 numeric_mod:1729 - -
1784 = b t f 1560 1560 16 1784 1785 biteq:1581 eqsel:101 eqjoinsel:105
1785 <> b f f 1560 1560 16 1785 1784 bitne:1582 neqsel:102 neqjoinsel:106
1786 < b f f 1560 1560 16 1787 1789 bitlt:1595 scalarltsel:103 scalarltjoinsel:107
1787 > b f f 1560 1560 16 1786 1788 bitgt:1593 scalargtsel:104 scalargtjoinsel:108
1788 <= b f f 1560 1560 16 1789 1787 bitle:1594 scalarlesel:336 scalarlejoinsel:386
1789 >= b f f 1560 1560 16 1788 1786 bitge:1592 scalargesel:337 scalargejoinsel:398
1791 & b f f 1560 1560 1560 1791 0 bitand:1673 - -
1792 | b f f 1560 1560 1560 1792 0 bitor:1674 - -
1793 # b f f 1560 1560 1560 1793 0 bitxor:1675 - -
1794 ~ l f f 0 1560 1560 0 0 bitnot:1676 - -
1795 << b f f 1560 23 1560 0 0 bitshiftleft:1677 - -
1796 >> b f f 1560 23 1560 0 0 bitshiftright:1678 - -
1800 + b f f 1083 1186 1083 1849 0 time_pl_interval:1747 - -
1801 - b f f 1083 1186 1083 0 0 time_mi_interval:1748 - -
1802 + b f f 1266 1186 1266 2552 0 timetz_pl_interval:1749 - -
1803 - b f f 1266 1186 1266 0 0 timetz_mi_interval:1750 - -
1804 = b t f 1562 1562 16 1804 1805 varbiteq:1666 eqsel:101 eqjoinsel:105
1805 <> b f f 1562 1562 16 1805 1804 varbitne:1667 neqsel:102 neqjoinsel:106
1806 < b f f 1562 1562 16 1807 1809 varbitlt:1671 scalarltsel:103 scalarltjoinsel:107
1807 > b f f 1562 1562 16 1806 1808 varbitgt:1669 scalargtsel:104 scalargtjoinsel:108
1808 <= b f f 1562 1562 16 1809 1807 varbitle:1670 scalarlesel:336 scalarlejoinsel:386
1809 >= b f f 1562 1562 16 1808 1806 varbitge:1668 scalargesel:337 scalargejoinsel:398
1849 + b f f 1186 1083 1083 1800 0 interval_pl_time:1848 - -
1862 = b t t 21 20 16 1868 1863 int28eq:1850 eqsel:101 eqjoinsel:105
1863 <> b f f 21 20 16 1869 1862 int28ne:1851 neqsel:102 neqjoinsel:106
1864 < b f f 21 20 16 1871 1867 int28lt:1852 scalarltsel:103 scalarltjoinsel:107
1865 > b f f 21 20 16 1870 1866 int28gt:1853 scalargtsel:104 scalargtjoinsel:108
1866 <= b f f 21 20 16 1873 1865 int28le:1854 scalarlesel:336 scalarlejoinsel:386
1867 >= b f f 21 20 16 1872 1864 int28ge:1855 scalargesel:337 scalargejoinsel:398
1868 = b t t 20 21 16 1862 1869 int82eq:1856 eqsel:101 eqjoinsel:105
1869 <> b f f 20 21 16 1863 1868 int82ne:1857 neqsel:102 neqjoinsel:106
1870 < b f f 20 21 16 1865 1873 int82lt:1858 scalarltsel:103 scalarltjoinsel:107
1871 > b f f 20 21 16 1864 1872 int82gt:1859 scalargtsel:104 scalargtjoinsel:108
1872 <= b f f 20 21 16 1867 1871 int82le:1860 scalarlesel:336 scalarlejoinsel:386
1873 >= b f f 20 21 16 1866 1870 int82ge:1861 scalargesel:337 scalargejoinsel:398
1874 & b f f 21 21 21 1874 0 int2and:1892 - -
1875 | b f f 21 21 21 1875 0 int2or:1893 - -
1876 # b f f 21 21 21 1876 0 int2xor:1894 - -
1877 ~ l f f 0 21 21 0 0 int2not:1895 - -
1878 << b f f 21 23 21 0 0 int2shl:1896 - -
1879 >> b f f 21 23 21 0 0 int2shr:1897 - -
1880 & b f f 23 23 23 1880 0 int4and:1898 - -
1881 | b f f 23 23 23 1881 0 int4or:1899 - -
1882 # b f f 23 23 23 1882 0 int4xor:1900 - -
1883 ~ l f f 0 23 23 0 0 int4not:1901 - -
1884 << b f f 23 23 23 0 0 int4shl:1902 - -
1885 >> b f f 23 23 23 0 0 int4shr:1903 - -
1886 & b f f 20 20 20 1886 0 int8and:1904 - -
1887 | b f f 20 20 20 1887 0 int8or:1905 - -
1888 # b f f 20 20 20 1888 0 int8xor:1906 - -
1889 ~ l f f 0 20 20 0 0 int8not:1907 - -
1890 << b f f 20 23 20 0 0 int8shl:1908 - -
1891 >> b f f 20 23 20 0 0 int8shr:1909 - -
1916 + l f f 0 20 20 0 0 int8up:1910 - -
1917 + l f f 0 21 21 0 0 int2up:1911 - -
1918 + l f f 0 23 23 0 0 int4up:1912 - -
1919 + l f f 0 700 700 0 0 float4up:1913 - -
1920 + l f f 0 701 701 0 0 float8up:1914 - -
1921 + l f f 0 1700 1700 0 0 numeric_uplus:1915 - -
1955 = b t t 17 17 16 1955 1956 byteaeq:1948 eqsel:101 eqjoinsel:105
1956 <> b f f 17 17 16 1956 1955 byteane:1953 neqsel:102 neqjoinsel:106
1957 < b f f 17 17 16 1959 1960 bytealt:1949 scalarltsel:103 scalarltjoinsel:107
1958 <= b f f 17 17 16 1960 1959 byteale:1950 scalarlesel:336 scalarlejoinsel:386
1959 > b f f 17 17 16 1957 1958 byteagt:1951 scalargtsel:104 scalargtjoinsel:108
1960 >= b f f 17 17 16 1958 1957 byteage:1952 scalargesel:337 scalargejoinsel:398
2016 ~~ b f f 17 17 16 0 2017 bytealike:2005 likesel:1819 likejoinsel:1825
2017 !~~ b f f 17 17 16 0 2016 byteanlike:2006 nlikesel:1822 nlikejoinsel:1828
2018 || b f f 17 17 17 0 0 byteacat:2011 - -
2060 = b t t 1114 1114 16 2060 2061 timestamp_eq:2052 eqsel:101 eqjoinsel:105
2061 <> b f f 1114 1114 16 2061 2060 timestamp_ne:2053 neqsel:102 neqjoinsel:106
2062 < b f f 1114 1114 16 2064 2065 timestamp_lt:2054 scalarltsel:103 scalarltjoinsel:107
2063 <= b f f 1114 1114 16 2065 2064 timestamp_le:2055 scalarlesel:336 scalarlejoinsel:386
2064 > b f f 1114 1114 16 2062 2063 timestamp_gt:2057 scalargtsel:104 scalargtjoinsel:108
2065 >= b f f 1114 1114 16 2063 2062 timestamp_ge:2056 scalargesel:337 scalargejoinsel:398
2066 + b f f 1114 1186 1114 2553 0 timestamp_pl_interval:2032 - -
2067 - b f f 1114 1114 1186 0 0 timestamp_mi:2031 - -
2068 - b f f 1114 1186 1114 0 0 timestamp_mi_interval:2033 - -
2345 < b f f 1082 1114 16 2375 2348 date_lt_timestamp:2338 scalarltsel:103 scalarltjoinsel:107
2346 <= b f f 1082 1114 16 2374 2349 date_le_timestamp:2339 scalarlesel:336 scalarlejoinsel:386
2347 = b t f 1082 1114 16 2373 2350 date_eq_timestamp:2340 eqsel:101 eqjoinsel:105
2348 >= b f f 1082 1114 16 2372 2345 date_ge_timestamp:2342 scalargesel:337 scalargejoinsel:398
2349 > b f f 1082 1114 16 2371 2346 date_gt_timestamp:2341 scalargtsel:104 scalargtjoinsel:108
2350 <> b f f 1082 1114 16 2376 2347 date_ne_timestamp:2343 neqsel:102 neqjoinsel:106
2358 < b f f 1082 1184 16 2388 2361 date_lt_timestamptz:2351 scalarltsel:103 scalarltjoinsel:107
2359 <= b f f 1082 1184 16 2387 2362 date_le_timestamptz:2352 scalarlesel:336 scalarlejoinsel:386
2360 = b t f 1082 1184 16 2386 2363 date_eq_timestamptz:2353 eqsel:101 eqjoinsel:105
2361 >= b f f 1082 1184 16 2385 2358 date_ge_timestamptz:2355 scalargesel:337 scalargejoinsel:398
2362 > b f f 1082 1184 16 2384 2359 date_gt_timestamptz:2354 scalargtsel:104 scalargtjoinsel:108
2363 <> b f f 1082 1184 16 2389 2360 date_ne_timestamptz:2356 neqsel:102 neqjoinsel:106
2371 < b f f 1114 1082 16 2349 2374 timestamp_lt_date:2364 scalarltsel:103 scalarltjoinsel:107
2372 <= b f f 1114 1082 16 2348 2375 timestamp_le_date:2365 scalarlesel:336 scalarlejoinsel:386
2373 = b t f 1114 1082 16 2347 2376 timestamp_eq_date:2366 eqsel:101 eqjoinsel:105
2374 >= b f f 1114 1082 16 2346 2371 timestamp_ge_date:2368 scalargesel:337 scalargejoinsel:398
2375 > b f f 1114 1082 16 2345 2372 timestamp_gt_date:2367 scalargtsel:104 scalargtjoinsel:108
2376 <> b f f 1114 1082 16 2350 2373 timestamp_ne_date:2369 neqsel:102 neqjoinsel:106
2384 < b f f 1184 1082 16 2362 2387 timestamptz_lt_date:2377 scalarltsel:103 scalarltjoinsel:107
2385 <= b f f 1184 1082 16 2361 2388 timestamptz_le_date:2378 scalarlesel:336 scalarlejoinsel:386
2386 = b t f 1184 1082 16 2360 2389 timestamptz_eq_date:2379 eqsel:101 eqjoinsel:105
2387 >= b f f 1184 1082 16 2359 2384 timestamptz_ge_date:2381 scalargesel:337 scalargejoinsel:398
2388 > b f f 1184 1082 16 2358 2385 timestamptz_gt_date:2380 scalargtsel:104 scalargtjoinsel:108
2389 <> b f f 1184 1082 16 2363 2386 timestamptz_ne_date:2382 neqsel:102 neqjoinsel:106
2534 < b f f 1114 1184 16 2544 2537 timestamp_lt_timestamptz:2520 scalarltsel:103 scalarltjoinsel:107
2535 <= b f f 1114 1184 16 2543 2538 timestamp_le_timestamptz:2521 scalarlesel:336 scalarlejoinsel:386
2536 = b t f 1114 1184 16 2542 2539 timestamp_eq_timestamptz:2522 eqsel:101 eqjoinsel:105
2537 >= b f f 1114 1184 16 2541 2534 timestamp_ge_timestamptz:2524 scalargesel:337 scalargejoinsel:398
2538 > b f f 1114 1184 16 2540 2535 timestamp_gt_timestamptz:2523 scalargtsel:104 scalargtjoinsel:108
2539 <> b f f 1114 1184 16 2545 2536 timestamp_ne_timestamptz:2525 neqsel:102 neqjoinsel:106
2540 < b f f 1184 1114 16 2538 2543 timestamptz_lt_timestamp:2527 scalarltsel:103 scalarltjoinsel:107
2541 <= b f f 1184 1114 16 2537 2544 timestamptz_le_timestamp:2528 scalarlesel:336 scalarlejoinsel:386
2542 = b t f 1184 1114 16 2536 2545 timestamptz_eq_timestamp:2529 eqsel:101 eqjoinsel:105
2543 >= b f f 1184 1114 16 2535 2540 timestamptz_ge_timestamp:2531 scalargesel:337 scalargejoinsel:398
2544 > b f f 1184 1114 16 2534 2541 timestamptz_gt_timestamp:2530 scalargtsel:104 scalargtjoinsel:108
2545 <> b f f 1184 1114 16 2539 2542 timestamptz_ne_timestamp:2532 neqsel:102 neqjoinsel:106
2551 + b f f 1186 1082 1114 1076 0 interval_pl_date:2546 - -
2552 + b f f 1186 1266 1266 1802 0 interval_pl_timetz:2547 - -
2553 + b f f 1186 1114 1114 2066 0 interval_pl_timestamp:2548 - -
2554 + b f f 1186 1184 1184 1327 0 interval_pl_timestamptz:2549 - -
2555 + b f f 23 1082 1082 1100 0 integer_pl_date:2550 - -
2570 <<| b f f 603 603 16 0 0 box_below:2562 positionsel:1300 positionjoinsel:1301
2571 &<| b f f 603 603 16 0 0 box_overbelow:2563 positionsel:1300 positionjoinsel:1301
2572 |&> b f f 603 603 16 0 0 box_overabove:2564 positionsel:1300 positionjoinsel:1301
2573 |>> b f f 603 603 16 0 0 box_above:2565 positionsel:1300 positionjoinsel:1301
2574 <<| b f f 604 604 16 0 0 poly_below:2566 positionsel:1300 positionjoinsel:1301
2575 &<| b f f 604 604 16 0 0 poly_overbelow:2567 positionsel:1300 positionjoinsel:1301
2576 |&> b f f 604 604 16 0 0 poly_overabove:2568 positionsel:1300 positionjoinsel:1301
2577 |>> b f f 604 604 16 0 0 poly_above:2569 positionsel:1300 positionjoinsel:1301
2589 &<| b f f 718 718 16 0 0 circle_overbelow:2587 positionsel:1300 positionjoinsel:1301
2590 |&> b f f 718 718 16 0 0 circle_overabove:2588 positionsel:1300 positionjoinsel:1301
2634 ~ l f f 0 869 869 0 0 inetnot:2627 - -
2635 & b f f 869 869 869 0 0 inetand:2628 - -
2636 | b f f 869 869 869 0 0 inetor:2629 - -
2637 + b f f 869 20 869 2638 0 inetpl:2630 - -
2638 + b f f 20 869 869 2637 0 int8pl_inet:2631 - -
2639 - b f f 869 20 869 0 0 inetmi_int8:2632 - -
2640 - b f f 869 869 20 0 0 inetmi:2633 - -
2750 && b f f 2277 2277 16 2750 0 arrayoverlap:2747 arraycontsel:3817 arraycontjoinsel:3818
2751 @> b f f 2277 2277 16 2752 0 arraycontains:2748 arraycontsel:3817 arraycontjoinsel:3818
2752 <@ b f f 2277 2277 16 2751 0 arraycontained:2749 arraycontsel:3817 arraycontjoinsel:3818
2779 || b f f 25 2776 25 0 0 textanycat:2003 - -
2780 || b f f 2776 25 25 0 0 anytextcat:2004 - -
2799 < b f f 27 27 16 2800 2802 tidlt:2791 scalarltsel:103 scalarltjoinsel:107
2800 > b f f 27 27 16 2799 2801 tidgt:2790 scalargtsel:104 scalargtjoinsel:108
2801 <= b f f 27 27 16 2802 2800 tidle:2793 scalarlesel:336 scalarlejoinsel:386
2802 >= b f f 27 27 16 2801 2799 tidge:2792 scalargesel:337 scalargejoinsel:398
2860 = b t t 4537 4537 16 2860 2861 multirange_eq:4244 eqsel:101 eqjoinsel:105
2861 <> b f f 4537 4537 16 2861 2860 multirange_ne:4245 neqsel:102 neqjoinsel:106
2862 < b f f 4537 4537 16 2865 2864 multirange_lt:4274 multirangesel:4243 scalarltjoinsel:107
2863 <= b f f 4537 4537 16 2864 2865 multirange_le:4275 multirangesel:4243 scalarlejoinsel:386
2864 >= b f f 4537 4537 16 2863 2862 multirange_ge:4276 multirangesel:4243 scalargejoinsel:398
2865 > b f f 4537 4537 16 2862 2863 multirange_gt:4277 multirangesel:4243 scalargtjoinsel:108
2866 && b f f 3831 4537 16 2867 0 range_overlaps_multirange:4246 multirangesel:4243 areajoinsel:140
2867 && b f f 4537 3831 16 2866 0 multirange_overlaps_range:4247 multirangesel:4243 areajoinsel:140
2868 && b f f 4537 4537 16 2868 0 multirange_overlaps_multirange:4248 multirangesel:4243 areajoinsel:140
2869 @> b f f 4537 2283 16 2872 0 multirange_contains_elem:4249 multirangesel:4243 contjoinsel:1303
2870 @> b f f 4537 3831 16 2873 0 multirange_contains_range:4250 multirangesel:4243 contjoinsel:1303
2871 @> b f f 4537 4537 16 2874 0 multirange_contains_multirange:4251 multirangesel:4243 contjoinsel:1303
2872 <@ b f f 2283 4537 16 2869 0 elem_contained_by_multirange:4252 multirangesel:4243 contjoinsel:1303
2873 <@ b f f 3831 4537 16 2870 0 range_contained_by_multirange:4253 multirangesel:4243 contjoinsel:1303
2874 <@ b f f 4537 4537 16 2871 0 multirange_contained_by_multirange:4254 multirangesel:4243 contjoinsel:1303
2972 = b t t 2950 2950 16 2972 2973 uuid_eq:2956 eqsel:101 eqjoinsel:105
2973 <> b f f 2950 2950 16 2973 2972 uuid_ne:2959 neqsel:102 neqjoinsel:106
2974 < b f f 2950 2950 16 2975 2977 uuid_lt:2954 scalarltsel:103 scalarltjoinsel:107
2975 > b f f 2950 2950 16 2974 2976 uuid_gt:2958 scalargtsel:104 scalargtjoinsel:108
2976 <= b f f 2950 2950 16 2977 2975 uuid_le:2955 scalarlesel:336 scalarlejoinsel:386
2977 >= b f f 2950 2950 16 2976 2974 uuid_ge:2957 scalargesel:337 scalargejoinsel:398
3206 #>> b f f 3802 1009 25 0 0 jsonb_extract_path_text:3940 - -
3211 -> b f f 3802 25 3802 0 0 jsonb_object_field:3478 - -
3212 -> b f f 3802 23 3802 0 0 jsonb_array_element:3215 - -
3213 #> b f f 3802 1009 3802 0 0 jsonb_extract_path:3217 - -
3222 = b t t 3220 3220 16 3222 3223 pg_lsn_eq:3233 eqsel:101 eqjoinsel:105
3223 <> b f f 3220 3220 16 3223 3222 pg_lsn_ne:3236 neqsel:102 neqjoinsel:106
3224 < b f f 3220 3220 16 3225 3227 pg_lsn_lt:3231 scalarltsel:103 scalarltjoinsel:107
3225 > b f f 3220 3220 16 3224 3226 pg_lsn_gt:3235 scalargtsel:104 scalargtjoinsel:108
3226 <= b f f 3220 3220 16 3227 3225 pg_lsn_le:3232 scalarlesel:336 scalarlejoinsel:386
3227 >= b f f 3220 3220 16 3226 3224 pg_lsn_ge:3234 scalargesel:337 scalargejoinsel:398
3240 = b t t 3802 3802 16 3240 3241 jsonb_eq:4043 eqsel:101 eqjoinsel:105
3241 <> b f f 3802 3802 16 3241 3240 jsonb_ne:4038 neqsel:102 neqjoinsel:106
3242 < b f f 3802 3802 16 3243 3245 jsonb_lt:4039 scalarltsel:103 scalarltjoinsel:107
3243 > b f f 3802 3802 16 3242 3244 jsonb_gt:4040 scalargtsel:104 scalargtjoinsel:108
3244 <= b f f 3802 3802 16 3245 3243 jsonb_le:4041 scalarlesel:336 scalarlejoinsel:386
3245 >= b f f 3802 3802 16 3244 3242 jsonb_ge:4042 scalargesel:337 scalargejoinsel:398
3246 @> b f f 3802 3802 16 3250 0 jsonb_contains:4046 matchingsel:5040 matchingjoinsel:5041
3247 ? b f f 3802 25 16 0 0 jsonb_exists:4047 matchingsel:5040 matchingjoinsel:5041
3248 ?| b f f 3802 1009 16 0 0 jsonb_exists_any:4048 matchingsel:5040 matchingjoinsel:5041
3249 ?& b f f 3802 1009 16 0 0 jsonb_exists_all:4049 matchingsel:5040 matchingjoinsel:5041
3250 <@ b f f 3802 3802 16 3246 0 jsonb_contained:4050 matchingsel:5040 matchingjoinsel:5041
3276 <-> b f f 600 604 701 3289 0 dist_ppoly:3275 - -
3284 || b f f 3802 3802 3802 0 0 jsonb_concat:3301 - -
3285 - b f f 3802 25 3802 0 0 pg_catalog.jsonb_delete:3302 - -
3286 - b f f 3802 23 3802 0 0 pg_catalog.jsonb_delete:3303 - -
3289 <-> b f f 604 600 701 3276 0 dist_polyp:3292 - -
3291 <-> b f f 718 600 701 1522 0 dist_cpoint:3290 - -
3315 <> b f f 28 28 16 3315 352 xidneq:3308 neqsel:102 neqjoinsel:106
3316 <> b f f 28 23 16 0 353 xidneqint4:3309 neqsel:102 neqjoinsel:106
3362 = b t t 774 774 16 3362 3363 macaddr8_eq:4113 eqsel:101 eqjoinsel:105
3363 <> b f f 774 774 16 3363 3362 macaddr8_ne:4118 neqsel:102 neqjoinsel:106
3364 < b f f 774 774 16 3366 3367 macaddr8_lt:4114 scalarltsel:103 scalarltjoinsel:107
3365 <= b f f 774 774 16 3367 3366 macaddr8_le:4115 scalarlesel:336 scalarlejoinsel:386
3366 > b f f 774 774 16 3364 3365 macaddr8_gt:4116 scalargtsel:104 scalargtjoinsel:108
3367 >= b f f 774 774 16 3365 3364 macaddr8_ge:4117 scalargesel:337 scalargejoinsel:398
3398 - b f f 3802 1009 3802 0 0 pg_catalog.jsonb_delete:3343 - -
3477 ->> b f f 3802 25 25 0 0 jsonb_object_field_text:3214 - -
3481 ->> b f f 3802 23 25 0 0 jsonb_array_element_text:3216 - -
3552 && b f f 869 869 16 3552 0 network_overlap:3551 networksel:3560 networkjoinsel:3561
3627 < b f f 3614 3614 16 3632 3631 tsvector_lt:3616 scalarltsel:103 scalarltjoinsel:107
3628 <= b f f 3614 3614 16 3631 3632 tsvector_le:3617 scalarlesel:336 scalarlejoinsel:386
3629 = b t f 3614 3614 16 3629 3630 tsvector_eq:3618 eqsel:101 eqjoinsel:105
3630 <> b f f 3614 3614 16 3630 3629 tsvector_ne:3619 neqsel:102 neqjoinsel:106
3631 >= b f f 3614 3614 16 3628 3627 tsvector_ge:3620 scalargesel:337 scalargejoinsel:398
3632 > b f f 3614 3614 16 3627 3628 tsvector_gt:3621 scalargtsel:104 scalargtjoinsel:108
3633 || b f f 3614 3614 3614 0 0 tsvector_concat:3625 - -
3636 @@ b f f 3614 3615 16 3637 0 ts_match_vq:3634 tsmatchsel:3686 tsmatchjoinsel:3687
3637 @@ b f f 3615 3614 16 3636 0 ts_match_qv:3635 tsmatchsel:3686 tsmatchjoinsel:3687
3674 < b f f 3615 3615 16 3679 3678 tsquery_lt:3662 scalarltsel:103 scalarltjoinsel:107
3675 <= b f f 3615 3615 16 3678 3679 tsquery_le:3663 scalarlesel:336 scalarlejoinsel:386
3676 = b t f 3615 3615 16 3676 3677 tsquery_eq:3664 eqsel:101 eqjoinsel:105
3677 <> b f f 3615 3615 16 3677 3676 tsquery_ne:3665 neqsel:102 neqjoinsel:106
3678 >= b f f 3615 3615 16 3675 3674 tsquery_ge:3666 scalargesel:337 scalargejoinsel:398
3679 > b f f 3615 3615 16 3674 3675 tsquery_gt:3667 scalargtsel:104 scalargtjoinsel:108
3680 && b f f 3615 3615 3615 0 0 tsquery_and:3669 - -
3681 || b f f 3615 3615 3615 0 0 tsquery_or:3670 - -
3682 !! l f f 0 3615 3615 0 0 tsquery_not:3671 - -
3693 @> b f f 3615 3615 16 3694 0 tsq_mcontains:3691 matchingsel:5040 matchingjoinsel:5041
3694 <@ b f f 3615 3615 16 3693 0 tsq_mcontained:3692 matchingsel:5040 matchingjoinsel:5041
3762 @@ b f f 25 25 16 0 0 ts_match_tt:3760 matchingsel:5040 matchingjoinsel:5041
3763 @@ b f f 25 3615 16 0 0 ts_match_tq:3761 matchingsel:5040 matchingjoinsel:5041
3877 ^@ b f f 25 25 16 0 0 starts_with:3696 prefixsel:3437 prefixjoinsel:3438
3882 = b t t 3831 3831 16 3882 3883 range_eq:3855 eqsel:101 eqjoinsel:105
3883 <> b f f 3831 3831 16 3883 3882 range_ne:3856 neqsel:102 neqjoinsel:106
3884 < b f f 3831 3831 16 3887 3886 range_lt:3871 rangesel:3169 scalarltjoinsel:107
3885 <= b f f 3831 3831 16 3886 3887 range_le:3872 rangesel:3169 scalarlejoinsel:386
3886 >= b f f 3831 3831 16 3885 3884 range_ge:3873 rangesel:3169 scalargejoinsel:398
3887 > b f f 3831 3831 16 3884 3885 range_gt:3874 rangesel:3169 scalargtjoinsel:108
3888 && b f f 3831 3831 16 3888 0 range_overlaps:3857 rangesel:3169 areajoinsel:140
3889 @> b f f 3831 2283 16 3891 0 range_contains_elem:3858 rangesel:3169 contjoinsel:1303
3890 @> b f f 3831 3831 16 3892 0 range_contains:3859 rangesel:3169 contjoinsel:1303
3891 <@ b f f 2283 3831 16 3889 0 elem_contained_by_range:3860 rangesel:3169 contjoinsel:1303
3892 <@ b f f 3831 3831 16 3890 0 range_contained_by:3861 rangesel:3169 contjoinsel:1303
3893 << b f f 3831 3831 16 3894 0 range_before:3863 rangesel:3169 scalarltjoinsel:107
3894 >> b f f 3831 3831 16 3893 0 range_after:3864 rangesel:3169 scalargtjoinsel:108
3895 &< b f f 3831 3831 16 0 0 range_overleft:3865 rangesel:3169 scalarltjoinsel:107
3896 &> b f f 3831 3831 16 0 0 range_overright:3866 rangesel:3169 scalargtjoinsel:108
3897 -|- b f f 3831 3831 16 3897 0 range_adjacent:3862 matchingsel:5040 matchingjoinsel:5041
3898 + b f f 3831 3831 3831 3898 0 range_union:3867 - -
3899 - b f f 3831 3831 3831 0 0 range_minus:3869 - -
3900 * b f f 3831 3831 3831 3900 0 range_intersect:3868 - -
3962 -> b f f 114 25 114 0 0 json_object_field:3947 - -
3963 ->> b f f 114 25 25 0 0 json_object_field_text:3948 - -
3964 -> b f f 114 23 114 0 0 json_array_element:3949 - -
3965 ->> b f f 114 23 25 0 0 json_array_element_text:3950 - -
3966 #> b f f 114 1009 114 0 0 json_extract_path:3951 - -
3967 #>> b f f 114 1009 25 0 0 json_extract_path_text:3953 - -
4012 @? b f f 3802 4072 16 0 0 jsonb_path_exists_opr:4010 matchingsel:5040 matchingjoinsel:5041
4013 @@ b f f 3802 4072 16 0 0 jsonb_path_match_opr:4011 matchingsel:5040 matchingjoinsel:5041
4161 |>> b f f 600 600 16 0 0 point_above:131 positionsel:1300 positionjoinsel:1301
4162 <<| b f f 600 600 16 0 0 point_below:134 positionsel:1300 positionjoinsel:1301
4392 + b f f 4537 4537 4537 4392 0 multirange_union:4270 - -
4393 - b f f 4537 4537 4537 0 0 multirange_minus:4271 - -
4394 * b f f 4537 4537 4537 4394 0 multirange_intersect:4272 - -
4539 @> b f f 3831 4537 16 4540 0 range_contains_multirange:4541 multirangesel:4243 contjoinsel:1303
4540 <@ b f f 4537 3831 16 4539 0 multirange_contained_by_range:4542 multirangesel:4243 contjoinsel:1303
5005 <-> b f f 3615 3615 3615 0 0 pg_catalog.tsquery_phrase:5003 - -
"""

# pg_description of the operators above
OPERATOR_DESCRIPTIONS: dict[int, str] = {
    15: 'equal',
    36: 'not equal',
    37: 'less than',
    58: 'less than',
    59: 'greater than',
    76: 'greater than',
    80: 'less than or equal',
    82: 'greater than or equal',
    85: 'not equal',
    91: 'equal',
    92: 'equal',
    93: 'equal',
    94: 'equal',
    95: 'less than',
    96: 'equal',
    97: 'less than',
    98: 'equal',
    254: 'equal',
    255: 'less than',
    256: 'less than or equal',
    257: 'greater than or equal',
    258: 'greater than',
    259: 'not equal',
    260: 'equal',
    261: 'less than',
    262: 'less than or equal',
    263: 'greater than or equal',
    264: 'greater than',
    265: 'not equal',
    349: 'append element onto end of array',
    352: 'equal',
    353: 'equal',
    374: 'prepend element onto front of array',
    375: 'concatenate',
    385: 'equal',
    387: 'equal',
    402: 'not equal',
    410: 'equal',
    411: 'not equal',
    412: 'less than',
    413: 'greater than',
    414: 'less than or equal',
    415: 'greater than or equal',
    416: 'equal',
    417: 'not equal',
    418: 'less than',
    419: 'greater than',
    420: 'less than or equal',
    430: 'greater than or equal',
    433: 'contains',
    439: 'modulus',
    484: 'negate',
    485: 'is left of',
    486: 'overlaps or is left of',
    487: 'overlaps or is right of',
    488: 'is right of',
    489: 'is contained by',
    490: 'contains',
    491: 'same as',
    492: 'overlaps',
    493: 'is left of',
    494: 'overlaps or is left of',
    495: 'overlaps or is right of',
    496: 'is right of',
    497: 'is contained by',
    498: 'contains',
    499: 'same as',
    500: 'overlaps',
    501: 'greater than or equal by area',
    502: 'greater than by area',
    503: 'equal by area',
    504: 'less than by area',
    505: 'less than or equal by area',
    506: 'deprecated, use |>> instead',
    507: 'is left of',
    508: 'is right of',
    509: 'deprecated, use <<| instead',
    510: 'same as',
    511: 'point inside box',
    512: 'point within closed path, or point on open path',
    513: 'center of',
    514: 'multiply',
    517: 'distance between',
    518: 'not equal',
    519: 'not equal',
    520: 'greater than',
    521: 'greater than',
    522: 'less than or equal',
    523: 'less than or equal',
    524: 'greater than or equal',
    525: 'greater than or equal',
    526: 'multiply',
    527: 'divide',
    528: 'divide',
    529: 'modulus',
    530: 'modulus',
    531: 'not equal',
    532: 'equal',
    533: 'equal',
    534: 'less than',
    535: 'less than',
    536: 'greater than',
    537: 'greater than',
    538: 'not equal',
    539: 'not equal',
    540: 'less than or equal',
    541: 'less than or equal',
    542: 'greater than or equal',
    543: 'greater than or equal',
    544: 'multiply',
    545: 'multiply',
    546: 'divide',
    547: 'divide',
    550: 'add',
    551: 'add',
    552: 'add',
    553: 'add',
    554: 'subtract',
    555: 'subtract',
    556: 'subtract',
    557: 'subtract',
    558: 'negate',
    559: 'negate',
    584: 'negate',
    585: 'negate',
    586: 'add',
    587: 'subtract',
    588: 'divide',
    589: 'multiply',
    591: 'add',
    592: 'subtract',
    593: 'divide',
    594: 'multiply',
    596: 'square root',
    597: 'cube root',
    606: 'distance between',
    607: 'equal',
    608: 'not equal',
    609: 'less than',
    610: 'greater than',
    611: 'less than or equal',
    612: 'greater than or equal',
    613: 'distance between',
    614: 'distance between',
    615: 'distance between',
    616: 'distance between',
    617: 'distance between',
    618: 'distance between',
    620: 'equal',
    621: 'not equal',
    622: 'less than',
    623: 'greater than',
    624: 'less than or equal',
    625: 'greater than or equal',
    630: 'not equal',
    631: 'less than',
    632: 'less than or equal',
    633: 'greater than',
    634: 'greater than or equal',
    639: 'matches regular expression, case-sensitive',
    640: 'does not match regular expression, case-sensitive',
    641: 'matches regular expression, case-sensitive',
    642: 'does not match regular expression, case-sensitive',
    643: 'not equal',
    644: 'not equal',
    645: 'less than',
    646: 'greater than',
    647: 'less than or equal',
    648: 'greater than or equal',
    649: 'equal',
    654: 'concatenate',
    660: 'less than',
    661: 'less than or equal',
    662: 'greater than',
    663: 'greater than or equal',
    664: 'less than',
    665: 'less than or equal',
    666: 'greater than',
    667: 'greater than or equal',
    670: 'equal',
    671: 'not equal',
    672: 'less than',
    673: 'less than or equal',
    674: 'greater than',
    675: 'greater than or equal',
    684: 'add',
    685: 'subtract',
    686: 'multiply',
    687: 'divide',
    688: 'add',
    689: 'subtract',
    690: 'multiply',
    691: 'divide',
    692: 'add',
    693: 'subtract',
    694: 'multiply',
    695: 'divide',
    706: 'distance between',
    707: 'distance between',
    708: 'distance between',
    709: 'distance between',
    712: 'distance between',
    713: 'not equal',
    731: 'add points (translate)',
    732: 'subtract points (translate)',
    733: 'multiply points (scale/rotate)',
    734: 'divide points (scale/rotate)',
    735: 'concatenate',
    736: 'add (translate path)',
    737: 'subtract (translate path)',
    738: 'multiply (rotate/scale path)',
    739: 'divide (rotate/scale path)',
    755: 'contains',
    756: 'is contained by',
    757: 'contains',
    758: 'is contained by',
    759: 'contains',
    760: 'distance between',
    761: 'distance between',
    762: 'distance between',
    763: 'distance between',
    784: 'distance between',
    792: 'equal',
    793: 'less than',
    794: 'greater than',
    795: 'less than or equal',
    796: 'greater than or equal',
    797: 'number of points',
    798: 'intersect',
    799: 'sum of path segment lengths',
    800: 'is above (allows touching)',
    801: 'is below (allows touching)',
    802: 'deprecated, use && instead',
    803: 'box intersection',
    804: 'add point to box (translate)',
    805: 'subtract point from box (translate)',
    806: 'multiply box by point (scale)',
    807: 'divide box by point (scale)',
    808: 'horizontally aligned',
    809: 'vertically aligned',
    818: 'add',
    819: 'subtract',
    820: 'multiply',
    821: 'divide',
    822: 'add',
    823: 'subtract',
    824: 'multiply',
    825: 'divide',
    900: 'equal',
    901: 'not equal',
    902: 'less than',
    903: 'greater than',
    904: 'less than or equal',
    905: 'greater than or equal',
    931: 'is subnet',
    932: 'is subnet or equal',
    933: 'is supernet',
    934: 'is supernet or equal',
    965: 'exponentiation',
    969: 'center of',
    971: 'center of',
    974: 'equal',
    1038: 'exponentiation',
    1054: 'equal',
    1055: 'matches regular expression, case-sensitive',
    1056: 'does not match regular expression, case-sensitive',
    1057: 'not equal',
    1058: 'less than',
    1059: 'less than or equal',
    1060: 'greater than',
    1061: 'greater than or equal',
    1070: 'equal',
    1071: 'not equal',
    1072: 'less than',
    1073: 'greater than',
    1074: 'less than or equal',
    1075: 'greater than or equal',
    1076: 'add',
    1077: 'subtract',
    1093: 'equal',
    1094: 'not equal',
    1095: 'less than',
    1096: 'less than or equal',
    1097: 'greater than',
    1098: 'greater than or equal',
    1099: 'subtract',
    1100: 'add',
    1101: 'subtract',
    1108: 'equal',
    1109: 'not equal',
    1110: 'less than',
    1111: 'less than or equal',
    1112: 'greater than',
    1113: 'greater than or equal',
    1116: 'add',
    1117: 'subtract',
    1118: 'divide',
    1119: 'multiply',
    1120: 'equal',
    1121: 'not equal',
    1122: 'less than',
    1123: 'greater than',
    1124: 'less than or equal',
    1125: 'greater than or equal',
    1126: 'add',
    1127: 'subtract',
    1128: 'divide',
    1129: 'multiply',
    1130: 'equal',
    1131: 'not equal',
    1132: 'less than',
    1133: 'greater than',
    1134: 'less than or equal',
    1135: 'greater than or equal',
    1201: 'equal',
    1202: 'not equal',
    1203: 'less than',
    1204: 'less than or equal',
    1205: 'greater than',
    1206: 'greater than or equal',
    1207: 'matches LIKE expression',
    1208: 'does not match LIKE expression',
    1209: 'matches LIKE expression',
    1210: 'does not match LIKE expression',
    1211: 'matches LIKE expression',
    1212: 'does not match LIKE expression',
    1220: 'equal',
    1221: 'not equal',
    1222: 'less than',
    1223: 'less than or equal',
    1224: 'greater than',
    1225: 'greater than or equal',
    1226: 'matches regular expression, case-insensitive',
    1227: 'does not match regular expression, case-insensitive',
    1228: 'matches regular expression, case-insensitive',
    1229: 'does not match regular expression, case-insensitive',
    1234: 'matches regular expression, case-insensitive',
    1235: 'does not match regular expression, case-insensitive',
    1320: 'equal',
    1321: 'not equal',
    1322: 'less than',
    1323: 'less than or equal',
    1324: 'greater than',
    1325: 'greater than or equal',
    1327: 'add',
    1328: 'subtract',
    1329: 'subtract',
    1330: 'equal',
    1331: 'not equal',
    1332: 'less than',
    1333: 'less than or equal',
    1334: 'greater than',
    1335: 'greater than or equal',
    1336: 'negate',
    1337: 'add',
    1338: 'subtract',
    1360: 'convert date and time to timestamp',
    1363: 'convert time and date to timestamp',
    1383: 'distance between',
    1399: 'subtract',
    1420: 'center of',
    1500: 'equal by area',
    1501: 'not equal by area',
    1502: 'less than by area',
    1503: 'greater than by area',
    1504: 'less than or equal by area',
    1505: 'greater than or equal by area',
    1506: 'is left of',
    1507: 'overlaps or is left of',
    1508: 'overlaps or is right of',
    1509: 'is right of',
    1510: 'is contained by',
    1511: 'contains',
    1512: 'same as',
    1513: 'overlaps',
    1514: 'is above',
    1515: 'is below',
    1516: 'add',
    1517: 'subtract',
    1518: 'multiply',
    1519: 'divide',
    1520: 'distance between',
    1521: 'number of points',
    1522: 'distance between',
    1523: 'distance between',
    1525: 'intersect',
    1526: 'parallel',
    1527: 'perpendicular',
    1528: 'horizontal',
    1529: 'vertical',
    1535: 'equal',
    1536: 'intersection point',
    1537: 'intersect',
    1538: 'intersect',
    1539: 'intersect',
    1546: 'point on line',
    1547: 'is contained by',
    1548: 'lseg on line',
    1549: 'is contained by',
    1550: 'equal',
    1551: 'not equal',
    1552: 'less than',
    1553: 'less than or equal',
    1554: 'greater than',
    1555: 'greater than or equal',
    1557: 'closest point to A on B',
    1558: 'closest point to A on B',
    1559: 'closest point to A on B',
    1567: 'closest point to A on B',
    1577: 'closest point to A on B',
    1578: 'closest point to A on B',
    1583: 'multiply',
    1584: 'multiply',
    1585: 'divide',
    1586: 'not equal',
    1587: 'less than by length',
    1588: 'less than or equal by length',
    1589: 'greater than by length',
    1590: 'greater than or equal by length',
    1591: 'distance between endpoints',
    1611: 'intersect',
    1612: 'parallel',
    1613: 'perpendicular',
    1614: 'horizontal',
    1615: 'vertical',
    1616: 'equal',
    1617: 'intersection point',
    1625: 'matches LIKE expression, case-insensitive',
    1626: 'does not match LIKE expression, case-insensitive',
    1627: 'matches LIKE expression, case-insensitive',
    1628: 'does not match LIKE expression, case-insensitive',
    1629: 'matches LIKE expression, case-insensitive',
    1630: 'does not match LIKE expression, case-insensitive',
    1694: 'less than or equal',
    1695: 'greater than or equal',
    1751: 'negate',
    1752: 'equal',
    1753: 'not equal',
    1754: 'less than',
    1755: 'less than or equal',
    1756: 'greater than',
    1757: 'greater than or equal',
    1758: 'add',
    1759: 'subtract',
    1760: 'multiply',
    1761: 'divide',
    1762: 'modulus',
    1784: 'equal',
    1785: 'not equal',
    1786: 'less than',
    1787: 'greater than',
    1788: 'less than or equal',
    1789: 'greater than or equal',
    1791: 'bitwise and',
    1792: 'bitwise or',
    1793: 'bitwise exclusive or',
    1794: 'bitwise not',
    1795: 'bitwise shift left',
    1796: 'bitwise shift right',
    1800: 'add',
    1801: 'subtract',
    1802: 'add',
    1803: 'subtract',
    1804: 'equal',
    1805: 'not equal',
    1806: 'less than',
    1807: 'greater than',
    1808: 'less than or equal',
    1809: 'greater than or equal',
    1849: 'add',
    1862: 'equal',
    1863: 'not equal',
    1864: 'less than',
    1865: 'greater than',
    1866: 'less than or equal',
    1867: 'greater than or equal',
    1868: 'equal',
    1869: 'not equal',
    1870: 'less than',
    1871: 'greater than',
    1872: 'less than or equal',
    1873: 'greater than or equal',
    1874: 'bitwise and',
    1875: 'bitwise or',
    1876: 'bitwise exclusive or',
    1877: 'bitwise not',
    1878: 'bitwise shift left',
    1879: 'bitwise shift right',
    1880: 'bitwise and',
    1881: 'bitwise or',
    1882: 'bitwise exclusive or',
    1883: 'bitwise not',
    1884: 'bitwise shift left',
    1885: 'bitwise shift right',
    1886: 'bitwise and',
    1887: 'bitwise or',
    1888: 'bitwise exclusive or',
    1889: 'bitwise not',
    1890: 'bitwise shift left',
    1891: 'bitwise shift right',
    1916: 'unary plus',
    1917: 'unary plus',
    1918: 'unary plus',
    1919: 'unary plus',
    1920: 'unary plus',
    1921: 'unary plus',
    1955: 'equal',
    1956: 'not equal',
    1957: 'less than',
    1958: 'less than or equal',
    1959: 'greater than',
    1960: 'greater than or equal',
    2016: 'matches LIKE expression',
    2017: 'does not match LIKE expression',
    2018: 'concatenate',
    2060: 'equal',
    2061: 'not equal',
    2062: 'less than',
    2063: 'less than or equal',
    2064: 'greater than',
    2065: 'greater than or equal',
    2066: 'add',
    2067: 'subtract',
    2068: 'subtract',
    2345: 'less than',
    2346: 'less than or equal',
    2347: 'equal',
    2348: 'greater than or equal',
    2349: 'greater than',
    2350: 'not equal',
    2358: 'less than',
    2359: 'less than or equal',
    2360: 'equal',
    2361: 'greater than or equal',
    2362: 'greater than',
    2363: 'not equal',
    2371: 'less than',
    2372: 'less than or equal',
    2373: 'equal',
    2374: 'greater than or equal',
    2375: 'greater than',
    2376: 'not equal',
    2384: 'less than',
    2385: 'less than or equal',
    2386: 'equal',
    2387: 'greater than or equal',
    2388: 'greater than',
    2389: 'not equal',
    2534: 'less than',
    2535: 'less than or equal',
    2536: 'equal',
    2537: 'greater than or equal',
    2538: 'greater than',
    2539: 'not equal',
    2540: 'less than',
    2541: 'less than or equal',
    2542: 'equal',
    2543: 'greater than or equal',
    2544: 'greater than',
    2545: 'not equal',
    2551: 'add',
    2552: 'add',
    2553: 'add',
    2554: 'add',
    2555: 'add',
    2570: 'is below',
    2571: 'overlaps or is below',
    2572: 'overlaps or is above',
    2573: 'is above',
    2574: 'is below',
    2575: 'overlaps or is below',
    2576: 'overlaps or is above',
    2577: 'is above',
    2589: 'overlaps or is below',
    2590: 'overlaps or is above',
    2634: 'bitwise not',
    2635: 'bitwise and',
    2636: 'bitwise or',
    2637: 'add',
    2638: 'add',
    2639: 'subtract',
    2640: 'subtract',
    2750: 'overlaps',
    2751: 'contains',
    2752: 'is contained by',
    2779: 'concatenate',
    2780: 'concatenate',
    2799: 'less than',
    2800: 'greater than',
    2801: 'less than or equal',
    2802: 'greater than or equal',
    2860: 'equal',
    2861: 'not equal',
    2862: 'less than',
    2863: 'less than or equal',
    2864: 'greater than or equal',
    2865: 'greater than',
    2866: 'overlaps',
    2867: 'overlaps',
    2868: 'overlaps',
    2869: 'contains',
    2870: 'contains',
    2871: 'contains',
    2872: 'is contained by',
    2873: 'is contained by',
    2874: 'is contained by',
    2972: 'equal',
    2973: 'not equal',
    2974: 'less than',
    2975: 'greater than',
    2976: 'less than or equal',
    2977: 'greater than or equal',
    3206: 'get value from jsonb as text with path elements',
    3211: 'get jsonb object field',
    3212: 'get jsonb array element',
    3213: 'get value from jsonb with path elements',
    3222: 'equal',
    3223: 'not equal',
    3224: 'less than',
    3225: 'greater than',
    3226: 'less than or equal',
    3227: 'greater than or equal',
    3240: 'equal',
    3241: 'not equal',
    3242: 'less than',
    3243: 'greater than',
    3244: 'less than or equal',
    3245: 'greater than or equal',
    3246: 'contains',
    3247: 'key exists',
    3248: 'any key exists',
    3249: 'all keys exist',
    3250: 'is contained by',
    3276: 'distance between',
    3284: 'concatenate',
    3285: 'delete object field',
    3286: 'delete array element',
    3289: 'distance between',
    3291: 'distance between',
    3315: 'not equal',
    3316: 'not equal',
    3362: 'equal',
    3363: 'not equal',
    3364: 'less than',
    3365: 'less than or equal',
    3366: 'greater than',
    3367: 'greater than or equal',
    3398: 'delete object fields',
    3477: 'get jsonb object field as text',
    3481: 'get jsonb array element as text',
    3552: 'overlaps (is subnet or supernet)',
    3627: 'less than',
    3628: 'less than or equal',
    3629: 'equal',
    3630: 'not equal',
    3631: 'greater than or equal',
    3632: 'greater than',
    3633: 'concatenate',
    3636: 'text search match',
    3637: 'text search match',
    3674: 'less than',
    3675: 'less than or equal',
    3676: 'equal',
    3677: 'not equal',
    3678: 'greater than or equal',
    3679: 'greater than',
    3680: 'AND-concatenate',
    3681: 'OR-concatenate',
    3682: 'NOT tsquery',
    3693: 'contains',
    3694: 'is contained by',
    3762: 'text search match',
    3763: 'text search match',
    3877: 'starts with',
    3882: 'equal',
    3883: 'not equal',
    3884: 'less than',
    3885: 'less than or equal',
    3886: 'greater than or equal',
    3887: 'greater than',
    3888: 'overlaps',
    3889: 'contains',
    3890: 'contains',
    3891: 'is contained by',
    3892: 'is contained by',
    3893: 'is left of',
    3894: 'is right of',
    3895: 'overlaps or is left of',
    3896: 'overlaps or is right of',
    3897: 'is adjacent to',
    3898: 'range union',
    3899: 'range difference',
    3900: 'range intersection',
    3962: 'get json object field',
    3963: 'get json object field as text',
    3964: 'get json array element',
    3965: 'get json array element as text',
    3966: 'get value from json with path elements',
    3967: 'get value from json as text with path elements',
    4012: 'jsonpath exists',
    4013: 'jsonpath match',
    4161: 'is above',
    4162: 'is below',
    4392: 'multirange union',
    4393: 'multirange minus',
    4394: 'multirange intersect',
    4539: 'contains',
    4540: 'is contained by',
    5005: 'phrase-concatenate',
}

# oid method name family intype default keytype
OPCLASSES = """
1978 403 int4_ops 1976 23 t 0
1979 403 int2_ops 1976 21 t 0
1981 403 oid_ops 1989 26 t 0
3122 403 date_ops 434 1082 t 0
3123 403 float8_ops 1970 701 t 0
3124 403 int8_ops 1976 20 t 0
3125 403 numeric_ops 1988 1700 t 0
3126 403 text_ops 1994 25 t 0
3127 403 timestamptz_ops 434 1184 t 0
3128 403 timestamp_ops 434 1114 t 0
4217 403 text_pattern_ops 2095 25 f 0
4218 403 varchar_pattern_ops 2095 25 f 0
4219 403 bpchar_pattern_ops 2097 1042 f 0
10000 403 array_ops 397 2277 t 0
10001 405 array_ops 627 2277 t 0
10002 403 bit_ops 423 1560 t 0
10003 403 bool_ops 424 16 t 0
10004 403 bpchar_ops 426 1042 t 0
10005 405 bpchar_ops 427 1042 t 0
10006 403 bytea_ops 428 17 t 0
10007 403 char_ops 429 18 t 0
10008 405 char_ops 431 18 t 0
10009 403 cidr_ops 1974 869 f 0
10010 405 cidr_ops 1975 869 f 0
10011 405 date_ops 435 1082 t 0
10012 403 float4_ops 1970 700 t 0
10013 405 float4_ops 1971 700 t 0
10014 405 float8_ops 1971 701 t 0
10015 403 inet_ops 1974 869 t 0
10016 405 inet_ops 1975 869 t 0
10017 783 inet_ops 3550 869 f 0
10018 4000 inet_ops 3794 869 t 0
10019 405 int2_ops 1977 21 t 0
10020 405 int4_ops 1977 23 t 0
10021 405 int8_ops 1977 20 t 0
10022 403 interval_ops 1982 1186 t 0
10023 405 interval_ops 1983 1186 t 0
10024 403 macaddr_ops 1984 829 t 0
10025 405 macaddr_ops 1985 829 t 0
10026 403 macaddr8_ops 3371 774 t 0
10027 405 macaddr8_ops 3372 774 t 0
10028 403 name_ops 1994 19 t 2275
10029 405 name_ops 1995 19 t 0
10030 405 numeric_ops 1998 1700 t 0
10031 405 oid_ops 1990 26 t 0
10032 403 oidvector_ops 1991 30 t 0
10033 405 oidvector_ops 1992 30 t 0
10034 403 record_ops 2994 2249 t 0
10035 405 record_ops 6194 2249 t 0
10036 403 record_image_ops 3194 2249 f 0
10037 405 text_ops 1995 25 t 0
10038 403 time_ops 1996 1083 t 0
10039 405 time_ops 1997 1083 t 0
10040 405 timestamptz_ops 1999 1184 t 0
10041 403 timetz_ops 2000 1266 t 0
10042 405 timetz_ops 2001 1266 t 0
10043 403 varbit_ops 2002 1562 t 0
10044 403 varchar_ops 1994 25 f 0
10045 405 varchar_ops 1995 25 f 0
10046 405 timestamp_ops 2040 1114 t 0
10047 403 money_ops 2099 790 t 0
10048 405 bool_ops 2222 16 t 0
10049 405 bytea_ops 2223 17 t 0
10050 403 tid_ops 2789 27 t 0
10051 405 xid_ops 2225 28 t 0
10054 405 cid_ops 2226 29 t 0
10055 405 tid_ops 2227 27 t 0
10056 405 text_pattern_ops 2229 25 f 0
10057 405 varchar_pattern_ops 2229 25 f 0
10058 405 bpchar_pattern_ops 2231 1042 f 0
10059 405 aclitem_ops 2235 1033 t 0
10060 783 box_ops 2593 603 t 0
10061 783 point_ops 1029 600 t 603
10062 783 poly_ops 2594 604 t 603
10063 783 circle_ops 2595 718 t 603
10064 2742 array_ops 2745 2277 t 2283
10065 403 uuid_ops 2968 2950 t 0
10066 405 uuid_ops 2969 2950 t 0
10067 403 pg_lsn_ops 3253 3220 t 0
10068 405 pg_lsn_ops 3254 3220 t 0
10071 403 tsvector_ops 3626 3614 t 0
10072 783 tsvector_ops 3655 3614 t 3642
10073 2742 tsvector_ops 3659 3614 t 25
10074 403 tsquery_ops 3683 3615 t 0
10075 783 tsquery_ops 3702 3615 t 20
10076 403 range_ops 3901 3831 t 0
10077 405 range_ops 3903 3831 t 0
10078 783 range_ops 3919 3831 t 0
10079 4000 range_ops 3474 3831 t 0
10080 403 multirange_ops 4199 4537 t 0
10081 405 multirange_ops 4225 4537 t 0
10082 783 multirange_ops 6158 4537 t 3831
10083 4000 box_ops 5000 603 t 0
10084 4000 quad_point_ops 4015 600 t 0
10085 4000 kd_point_ops 4016 600 f 0
10086 4000 text_ops 4017 25 t 0
10087 4000 poly_ops 5008 604 t 603
10088 403 jsonb_ops 4033 3802 t 0
10089 405 jsonb_ops 4034 3802 t 0
10090 2742 jsonb_ops 4036 3802 t 25
10091 2742 jsonb_path_ops 4037 3802 f 23
10092 3580 bytea_minmax_ops 4064 17 t 17
10093 3580 bytea_bloom_ops 4578 17 f 17
10094 3580 char_minmax_ops 4062 18 t 18
10095 3580 char_bloom_ops 4577 18 f 18
10096 3580 name_minmax_ops 4065 19 t 19
10097 3580 name_bloom_ops 4579 19 f 19
10098 3580 int8_minmax_ops 4054 20 t 20
10099 3580 int8_minmax_multi_ops 4602 20 f 20
10100 3580 int8_bloom_ops 4572 20 f 20
10101 3580 int2_minmax_ops 4054 21 t 21
10102 3580 int2_minmax_multi_ops 4602 21 f 21
10103 3580 int2_bloom_ops 4572 21 f 21
10104 3580 int4_minmax_ops 4054 23 t 23
10105 3580 int4_minmax_multi_ops 4602 23 f 23
10106 3580 int4_bloom_ops 4572 23 f 23
10107 3580 text_minmax_ops 4056 25 t 25
10108 3580 text_bloom_ops 4573 25 f 25
10109 3580 oid_minmax_ops 4068 26 t 26
10110 3580 oid_minmax_multi_ops 4606 26 f 26
10111 3580 oid_bloom_ops 4580 26 f 26
10112 3580 tid_minmax_ops 4069 27 t 27
10113 3580 tid_bloom_ops 4581 27 f 27
10114 3580 tid_minmax_multi_ops 4607 27 f 27
10115 3580 float4_minmax_ops 4070 700 t 700
10116 3580 float4_minmax_multi_ops 4608 700 f 700
10117 3580 float4_bloom_ops 4582 700 f 700
10118 3580 float8_minmax_ops 4070 701 t 701
10119 3580 float8_minmax_multi_ops 4608 701 f 701
10120 3580 float8_bloom_ops 4582 701 f 701
10121 3580 macaddr_minmax_ops 4074 829 t 829
10122 3580 macaddr_minmax_multi_ops 4609 829 f 829
10123 3580 macaddr_bloom_ops 4583 829 f 829
10124 3580 macaddr8_minmax_ops 4109 774 t 774
10125 3580 macaddr8_minmax_multi_ops 4610 774 f 774
10126 3580 macaddr8_bloom_ops 4584 774 f 774
10127 3580 inet_minmax_ops 4075 869 f 869
10128 3580 inet_minmax_multi_ops 4611 869 f 869
10129 3580 inet_bloom_ops 4585 869 f 869
10130 3580 inet_inclusion_ops 4102 869 t 869
10131 3580 bpchar_minmax_ops 4076 1042 t 1042
10132 3580 bpchar_bloom_ops 4586 1042 f 1042
10133 3580 time_minmax_ops 4077 1083 t 1083
10134 3580 time_minmax_multi_ops 4612 1083 f 1083
10135 3580 time_bloom_ops 4587 1083 f 1083
10136 3580 date_minmax_ops 4059 1082 t 1082
10137 3580 date_minmax_multi_ops 4605 1082 f 1082
10138 3580 date_bloom_ops 4576 1082 f 1082
10139 3580 timestamp_minmax_ops 4059 1114 t 1114
10140 3580 timestamp_minmax_multi_ops 4605 1114 f 1114
10141 3580 timestamp_bloom_ops 4576 1114 f 1114
10142 3580 timestamptz_minmax_ops 4059 1184 t 1184
10143 3580 timestamptz_minmax_multi_ops 4605 1184 f 1184
10144 3580 timestamptz_bloom_ops 4576 1184 f 1184
10145 3580 interval_minmax_ops 4078 1186 t 1186
10146 3580 interval_minmax_multi_ops 4613 1186 f 1186
10147 3580 interval_bloom_ops 4588 1186 f 1186
10148 3580 timetz_minmax_ops 4058 1266 t 1266
10149 3580 timetz_minmax_multi_ops 4604 1266 f 1266
10150 3580 timetz_bloom_ops 4575 1266 f 1266
10151 3580 bit_minmax_ops 4079 1560 t 1560
10152 3580 varbit_minmax_ops 4080 1562 t 1562
10153 3580 numeric_minmax_ops 4055 1700 t 1700
10154 3580 numeric_minmax_multi_ops 4603 1700 f 1700
10155 3580 numeric_bloom_ops 4574 1700 f 1700
10156 3580 uuid_minmax_ops 4081 2950 t 2950
10157 3580 uuid_minmax_multi_ops 4614 2950 f 2950
10158 3580 uuid_bloom_ops 4589 2950 f 2950
10159 3580 range_inclusion_ops 4103 3831 t 3831
10160 3580 pg_lsn_minmax_ops 4082 3220 t 3220
10161 3580 pg_lsn_minmax_multi_ops 4615 3220 f 3220
10162 3580 pg_lsn_bloom_ops 4590 3220 f 3220
10163 3580 box_inclusion_ops 4104 603 t 603
"""

# oid method name
OPFAMILIES = """
397 403 array_ops
423 403 bit_ops
424 403 bool_ops
426 403 bpchar_ops
427 405 bpchar_ops
428 403 bytea_ops
429 403 char_ops
431 405 char_ops
434 403 datetime_ops
435 405 date_ops
627 405 array_ops
1029 783 point_ops
1970 403 float_ops
1971 405 float_ops
1974 403 network_ops
1975 405 network_ops
1976 403 integer_ops
1977 405 integer_ops
1982 403 interval_ops
1983 405 interval_ops
1984 403 macaddr_ops
1985 405 macaddr_ops
1988 403 numeric_ops
1989 403 oid_ops
1990 405 oid_ops
1991 403 oidvector_ops
1992 405 oidvector_ops
1994 403 text_ops
1995 405 text_ops
1996 403 time_ops
1997 405 time_ops
1998 405 numeric_ops
1999 405 timestamptz_ops
2000 403 timetz_ops
2001 405 timetz_ops
2002 403 varbit_ops
2040 405 timestamp_ops
2095 403 text_pattern_ops
2097 403 bpchar_pattern_ops
2099 403 money_ops
2222 405 bool_ops
2223 405 bytea_ops
2225 405 xid_ops
2226 405 cid_ops
2227 405 tid_ops
2229 405 text_pattern_ops
2231 405 bpchar_pattern_ops
2235 405 aclitem_ops
2593 783 box_ops
2594 783 poly_ops
2595 783 circle_ops
2745 2742 array_ops
2789 403 tid_ops
2968 403 uuid_ops
2969 405 uuid_ops
2994 403 record_ops
3194 403 record_image_ops
3253 403 pg_lsn_ops
3254 405 pg_lsn_ops
3371 403 macaddr8_ops
3372 405 macaddr8_ops
3474 4000 range_ops
3550 783 network_ops
3626 403 tsvector_ops
3655 783 tsvector_ops
3659 2742 tsvector_ops
3683 403 tsquery_ops
3702 783 tsquery_ops
3794 4000 network_ops
3901 403 range_ops
3903 405 range_ops
3919 783 range_ops
4015 4000 quad_point_ops
4016 4000 kd_point_ops
4017 4000 text_ops
4033 403 jsonb_ops
4034 405 jsonb_ops
4036 2742 jsonb_ops
4037 2742 jsonb_path_ops
4054 3580 integer_minmax_ops
4055 3580 numeric_minmax_ops
4056 3580 text_minmax_ops
4058 3580 timetz_minmax_ops
4059 3580 datetime_minmax_ops
4062 3580 char_minmax_ops
4064 3580 bytea_minmax_ops
4065 3580 name_minmax_ops
4068 3580 oid_minmax_ops
4069 3580 tid_minmax_ops
4070 3580 float_minmax_ops
4074 3580 macaddr_minmax_ops
4075 3580 network_minmax_ops
4076 3580 bpchar_minmax_ops
4077 3580 time_minmax_ops
4078 3580 interval_minmax_ops
4079 3580 bit_minmax_ops
4080 3580 varbit_minmax_ops
4081 3580 uuid_minmax_ops
4082 3580 pg_lsn_minmax_ops
4102 3580 network_inclusion_ops
4103 3580 range_inclusion_ops
4104 3580 box_inclusion_ops
4109 3580 macaddr8_minmax_ops
4199 403 multirange_ops
4225 405 multirange_ops
4572 3580 integer_bloom_ops
4573 3580 text_bloom_ops
4574 3580 numeric_bloom_ops
4575 3580 timetz_bloom_ops
4576 3580 datetime_bloom_ops
4577 3580 char_bloom_ops
4578 3580 bytea_bloom_ops
4579 3580 name_bloom_ops
4580 3580 oid_bloom_ops
4581 3580 tid_bloom_ops
4582 3580 float_bloom_ops
4583 3580 macaddr_bloom_ops
4584 3580 macaddr8_bloom_ops
4585 3580 network_bloom_ops
4586 3580 bpchar_bloom_ops
4587 3580 time_bloom_ops
4588 3580 interval_bloom_ops
4589 3580 uuid_bloom_ops
4590 3580 pg_lsn_bloom_ops
4602 3580 integer_minmax_multi_ops
4603 3580 numeric_minmax_multi_ops
4604 3580 timetz_minmax_multi_ops
4605 3580 datetime_minmax_multi_ops
4606 3580 oid_minmax_multi_ops
4607 3580 tid_minmax_multi_ops
4608 3580 float_minmax_multi_ops
4609 3580 macaddr_minmax_multi_ops
4610 3580 macaddr8_minmax_multi_ops
4611 3580 network_minmax_multi_ops
4612 3580 time_minmax_multi_ops
4613 3580 interval_minmax_multi_ops
4614 3580 uuid_minmax_multi_ops
4615 3580 pg_lsn_minmax_multi_ops
5000 4000 box_ops
5008 4000 poly_ops
6158 783 multirange_ops
6194 405 record_ops
"""

# oid family left right strategy purpose operator method sortfamily
AMOPS = """
10000 1976 21 21 1 s 95 403 0
10001 1976 21 21 2 s 522 403 0
10002 1976 21 21 3 s 94 403 0
10003 1976 21 21 4 s 524 403 0
10004 1976 21 21 5 s 520 403 0
10005 1976 21 23 1 s 534 403 0
10006 1976 21 23 2 s 540 403 0
10007 1976 21 23 3 s 532 403 0
10008 1976 21 23 4 s 542 403 0
10009 1976 21 23 5 s 536 403 0
10010 1976 21 20 1 s 1864 403 0
10011 1976 21 20 2 s 1866 403 0
10012 1976 21 20 3 s 1862 403 0
10013 1976 21 20 4 s 1867 403 0
10014 1976 21 20 5 s 1865 403 0
10015 1976 23 23 1 s 97 403 0
10016 1976 23 23 2 s 523 403 0
10017 1976 23 23 3 s 96 403 0
10018 1976 23 23 4 s 525 403 0
10019 1976 23 23 5 s 521 403 0
10020 1976 23 21 1 s 535 403 0
10021 1976 23 21 2 s 541 403 0
10022 1976 23 21 3 s 533 403 0
10023 1976 23 21 4 s 543 403 0
10024 1976 23 21 5 s 537 403 0
10025 1976 23 20 1 s 37 403 0
10026 1976 23 20 2 s 80 403 0
10027 1976 23 20 3 s 15 403 0
10028 1976 23 20 4 s 82 403 0
10029 1976 23 20 5 s 76 403 0
10030 1976 20 20 1 s 412 403 0
10031 1976 20 20 2 s 414 403 0
10032 1976 20 20 3 s 410 403 0
10033 1976 20 20 4 s 415 403 0
10034 1976 20 20 5 s 413 403 0
10035 1976 20 21 1 s 1870 403 0
10036 1976 20 21 2 s 1872 403 0
10037 1976 20 21 3 s 1868 403 0
10038 1976 20 21 4 s 1873 403 0
10039 1976 20 21 5 s 1871 403 0
10040 1976 20 23 1 s 418 403 0
10041 1976 20 23 2 s 420 403 0
10042 1976 20 23 3 s 416 403 0
10043 1976 20 23 4 s 430 403 0
10044 1976 20 23 5 s 419 403 0
10045 1989 26 26 1 s 609 403 0
10046 1989 26 26 2 s 611 403 0
10047 1989 26 26 3 s 607 403 0
10048 1989 26 26 4 s 612 403 0
10049 1989 26 26 5 s 610 403 0
10055 2789 27 27 1 s 2799 403 0
10056 2789 27 27 2 s 2801 403 0
10057 2789 27 27 3 s 387 403 0
10058 2789 27 27 4 s 2802 403 0
10059 2789 27 27 5 s 2800 403 0
10060 1991 30 30 1 s 645 403 0
10061 1991 30 30 2 s 647 403 0
10062 1991 30 30 3 s 649 403 0
10063 1991 30 30 4 s 648 403 0
10064 1991 30 30 5 s 646 403 0
10065 1970 700 700 1 s 622 403 0
10066 1970 700 700 2 s 624 403 0
10067 1970 700 700 3 s 620 403 0
10068 1970 700 700 4 s 625 403 0
10069 1970 700 700 5 s 623 403 0
10070 1970 700 701 1 s 1122 403 0
10071 1970 700 701 2 s 1124 403 0
10072 1970 700 701 3 s 1120 403 0
10073 1970 700 701 4 s 1125 403 0
10074 1970 700 701 5 s 1123 403 0
10075 1970 701 701 1 s 672 403 0
10076 1970 701 701 2 s 673 403 0
10077 1970 701 701 3 s 670 403 0
10078 1970 701 701 4 s 675 403 0
10079 1970 701 701 5 s 674 403 0
10080 1970 701 700 1 s 1132 403 0
10081 1970 701 700 2 s 1134 403 0
10082 1970 701 700 3 s 1130 403 0
10083 1970 701 700 4 s 1135 403 0
10084 1970 701 700 5 s 1133 403 0
10085 429 18 18 1 s 631 403 0
10086 429 18 18 2 s 632 403 0
10087 429 18 18 3 s 92 403 0
10088 429 18 18 4 s 634 403 0
10089 429 18 18 5 s 633 403 0
10090 1994 25 25 1 s 664 403 0
10091 1994 25 25 2 s 665 403 0
10092 1994 25 25 3 s 98 403 0
10093 1994 25 25 4 s 667 403 0
10094 1994 25 25 5 s 666 403 0
10095 1994 19 19 1 s 660 403 0
10096 1994 19 19 2 s 661 403 0
10097 1994 19 19 3 s 93 403 0
10098 1994 19 19 4 s 663 403 0
10099 1994 19 19 5 s 662 403 0
10100 1994 19 25 1 s 255 403 0
10101 1994 19 25 2 s 256 403 0
10102 1994 19 25 3 s 254 403 0
10103 1994 19 25 4 s 257 403 0
10104 1994 19 25 5 s 258 403 0
10105 1994 25 19 1 s 261 403 0
10106 1994 25 19 2 s 262 403 0
10107 1994 25 19 3 s 260 403 0
10108 1994 25 19 4 s 263 403 0
10109 1994 25 19 5 s 264 403 0
10110 426 1042 1042 1 s 1058 403 0
10111 426 1042 1042 2 s 1059 403 0
10112 426 1042 1042 3 s 1054 403 0
10113 426 1042 1042 4 s 1061 403 0
10114 426 1042 1042 5 s 1060 403 0
10115 428 17 17 1 s 1957 403 0
10116 428 17 17 2 s 1958 403 0
10117 428 17 17 3 s 1955 403 0
10118 428 17 17 4 s 1960 403 0
10119 428 17 17 5 s 1959 403 0
10120 434 1082 1082 1 s 1095 403 0
10121 434 1082 1082 2 s 1096 403 0
10122 434 1082 1082 3 s 1093 403 0
10123 434 1082 1082 4 s 1098 403 0
10124 434 1082 1082 5 s 1097 403 0
10125 434 1082 1114 1 s 2345 403 0
10126 434 1082 1114 2 s 2346 403 0
10127 434 1082 1114 3 s 2347 403 0
10128 434 1082 1114 4 s 2348 403 0
10129 434 1082 1114 5 s 2349 403 0
10130 434 1082 1184 1 s 2358 403 0
10131 434 1082 1184 2 s 2359 403 0
10132 434 1082 1184 3 s 2360 403 0
10133 434 1082 1184 4 s 2361 403 0
10134 434 1082 1184 5 s 2362 403 0
10135 434 1114 1114 1 s 2062 403 0
10136 434 1114 1114 2 s 2063 403 0
10137 434 1114 1114 3 s 2060 403 0
10138 434 1114 1114 4 s 2065 403 0
10139 434 1114 1114 5 s 2064 403 0
10140 434 1114 1082 1 s 2371 403 0
10141 434 1114 1082 2 s 2372 403 0
10142 434 1114 1082 3 s 2373 403 0
10143 434 1114 1082 4 s 2374 403 0
10144 434 1114 1082 5 s 2375 403 0
10145 434 1114 1184 1 s 2534 403 0
10146 434 1114 1184 2 s 2535 403 0
10147 434 1114 1184 3 s 2536 403 0
10148 434 1114 1184 4 s 2537 403 0
10149 434 1114 1184 5 s 2538 403 0
10150 434 1184 1184 1 s 1322 403 0
10151 434 1184 1184 2 s 1323 403 0
10152 434 1184 1184 3 s 1320 403 0
10153 434 1184 1184 4 s 1325 403 0
10154 434 1184 1184 5 s 1324 403 0
10155 434 1184 1082 1 s 2384 403 0
10156 434 1184 1082 2 s 2385 403 0
10157 434 1184 1082 3 s 2386 403 0
10158 434 1184 1082 4 s 2387 403 0
10159 434 1184 1082 5 s 2388 403 0
10160 434 1184 1114 1 s 2540 403 0
10161 434 1184 1114 2 s 2541 403 0
10162 434 1184 1114 3 s 2542 403 0
10163 434 1184 1114 4 s 2543 403 0
10164 434 1184 1114 5 s 2544 403 0
10165 1996 1083 1083 1 s 1110 403 0
10166 1996 1083 1083 2 s 1111 403 0
10167 1996 1083 1083 3 s 1108 403 0
10168 1996 1083 1083 4 s 1113 403 0
10169 1996 1083 1083 5 s 1112 403 0
10170 2000 1266 1266 1 s 1552 403 0
10171 2000 1266 1266 2 s 1553 403 0
10172 2000 1266 1266 3 s 1550 403 0
10173 2000 1266 1266 4 s 1555 403 0
10174 2000 1266 1266 5 s 1554 403 0
10175 1982 1186 1186 1 s 1332 403 0
10176 1982 1186 1186 2 s 1333 403 0
10177 1982 1186 1186 3 s 1330 403 0
10178 1982 1186 1186 4 s 1335 403 0
10179 1982 1186 1186 5 s 1334 403 0
10180 1984 829 829 1 s 1222 403 0
10181 1984 829 829 2 s 1223 403 0
10182 1984 829 829 3 s 1220 403 0
10183 1984 829 829 4 s 1225 403 0
10184 1984 829 829 5 s 1224 403 0
10185 3371 774 774 1 s 3364 403 0
10186 3371 774 774 2 s 3365 403 0
10187 3371 774 774 3 s 3362 403 0
10188 3371 774 774 4 s 3367 403 0
10189 3371 774 774 5 s 3366 403 0
10190 1974 869 869 1 s 1203 403 0
10191 1974 869 869 2 s 1204 403 0
10192 1974 869 869 3 s 1201 403 0
10193 1974 869 869 4 s 1206 403 0
10194 1974 869 869 5 s 1205 403 0
10195 1988 1700 1700 1 s 1754 403 0
10196 1988 1700 1700 2 s 1755 403 0
10197 1988 1700 1700 3 s 1752 403 0
10198 1988 1700 1700 4 s 1757 403 0
10199 1988 1700 1700 5 s 1756 403 0
10200 424 16 16 1 s 58 403 0
10201 424 16 16 2 s 1694 403 0
10202 424 16 16 3 s 91 403 0
10203 424 16 16 4 s 1695 403 0
10204 424 16 16 5 s 59 403 0
10205 423 1560 1560 1 s 1786 403 0
10206 423 1560 1560 2 s 1788 403 0
10207 423 1560 1560 3 s 1784 403 0
10208 423 1560 1560 4 s 1789 403 0
10209 423 1560 1560 5 s 1787 403 0
10210 2002 1562 1562 1 s 1806 403 0
10211 2002 1562 1562 2 s 1808 403 0
10212 2002 1562 1562 3 s 1804 403 0
10213 2002 1562 1562 4 s 1809 403 0
10214 2002 1562 1562 5 s 1807 403 0
10217 2095 25 25 3 s 98 403 0
10222 2097 1042 1042 3 s 1054 403 0
10225 2099 790 790 1 s 902 403 0
10226 2099 790 790 2 s 904 403 0
10227 2099 790 790 3 s 900 403 0
10228 2099 790 790 4 s 905 403 0
10229 2099 790 790 5 s 903 403 0
10230 397 2277 2277 1 s 1072 403 0
10231 397 2277 2277 2 s 1074 403 0
10232 397 2277 2277 3 s 1070 403 0
10233 397 2277 2277 4 s 1075 403 0
10234 397 2277 2277 5 s 1073 403 0
10245 2968 2950 2950 1 s 2974 403 0
10246 2968 2950 2950 2 s 2976 403 0
10247 2968 2950 2950 3 s 2972 403 0
10248 2968 2950 2950 4 s 2977 403 0
10249 2968 2950 2950 5 s 2975 403 0
10250 3253 3220 3220 1 s 3224 403 0
10251 3253 3220 3220 2 s 3226 403 0
10252 3253 3220 3220 3 s 3222 403 0
10253 3253 3220 3220 4 s 3227 403 0
10254 3253 3220 3220 5 s 3225 403 0
10255 427 1042 1042 1 s 1054 405 0
10256 431 18 18 1 s 92 405 0
10257 435 1082 1082 1 s 1093 405 0
10258 1971 700 700 1 s 620 405 0
10259 1971 701 701 1 s 670 405 0
10260 1971 700 701 1 s 1120 405 0
10261 1971 701 700 1 s 1130 405 0
10262 1975 869 869 1 s 1201 405 0
10263 1977 21 21 1 s 94 405 0
10264 1977 23 23 1 s 96 405 0
10265 1977 20 20 1 s 410 405 0
10266 1977 21 23 1 s 532 405 0
10267 1977 21 20 1 s 1862 405 0
10268 1977 23 21 1 s 533 405 0
10269 1977 23 20 1 s 15 405 0
10270 1977 20 21 1 s 1868 405 0
10271 1977 20 23 1 s 416 405 0
10272 1983 1186 1186 1 s 1330 405 0
10273 1985 829 829 1 s 1220 405 0
10274 3372 774 774 1 s 3362 405 0
10275 1990 26 26 1 s 607 405 0
10276 1992 30 30 1 s 649 405 0
10278 1995 25 25 1 s 98 405 0
10279 1995 19 19 1 s 93 405 0
10280 1995 19 25 1 s 254 405 0
10281 1995 25 19 1 s 260 405 0
10282 1997 1083 1083 1 s 1108 405 0
10283 1999 1184 1184 1 s 1320 405 0
10284 2001 1266 1266 1 s 1550 405 0
10285 2040 1114 1114 1 s 2060 405 0
10286 2222 16 16 1 s 91 405 0
10287 2223 17 17 1 s 1955 405 0
10288 2225 28 28 1 s 352 405 0
10290 2226 29 29 1 s 385 405 0
10291 2227 27 27 1 s 387 405 0
10292 2229 25 25 1 s 98 405 0
10293 2231 1042 1042 1 s 1054 405 0
10294 2235 1033 1033 1 s 974 405 0
10295 2969 2950 2950 1 s 2972 405 0
10296 3254 3220 3220 1 s 3222 405 0
10297 1998 1700 1700 1 s 1752 405 0
10298 627 2277 2277 1 s 1070 405 0
10299 2593 603 603 1 s 493 783 0
10300 2593 603 603 2 s 494 783 0
10301 2593 603 603 3 s 500 783 0
10302 2593 603 603 4 s 495 783 0
10303 2593 603 603 5 s 496 783 0
10304 2593 603 603 6 s 499 783 0
10305 2593 603 603 7 s 498 783 0
10306 2593 603 603 8 s 497 783 0
10307 2593 603 603 9 s 2571 783 0
10308 2593 603 603 10 s 2570 783 0
10309 2593 603 603 11 s 2573 783 0
10310 2593 603 603 12 s 2572 783 0
10311 2593 603 600 15 o 606 783 1970
10312 1029 600 600 11 s 4161 783 0
10313 1029 600 600 30 s 506 783 0
10314 1029 600 600 1 s 507 783 0
10315 1029 600 600 5 s 508 783 0
10316 1029 600 600 10 s 4162 783 0
10317 1029 600 600 29 s 509 783 0
10318 1029 600 600 6 s 510 783 0
10319 1029 600 600 15 o 517 783 1970
10320 1029 600 603 28 s 511 783 0
10321 1029 600 604 48 s 756 783 0
10322 1029 600 718 68 s 758 783 0
10323 2594 604 604 1 s 485 783 0
10324 2594 604 604 2 s 486 783 0
10325 2594 604 604 3 s 492 783 0
10326 2594 604 604 4 s 487 783 0
10327 2594 604 604 5 s 488 783 0
10328 2594 604 604 6 s 491 783 0
10329 2594 604 604 7 s 490 783 0
10330 2594 604 604 8 s 489 783 0
10331 2594 604 604 9 s 2575 783 0
10332 2594 604 604 10 s 2574 783 0
10333 2594 604 604 11 s 2577 783 0
10334 2594 604 604 12 s 2576 783 0
10335 2594 604 600 15 o 3289 783 1970
10336 2595 718 718 1 s 1506 783 0
10337 2595 718 718 2 s 1507 783 0
10338 2595 718 718 3 s 1513 783 0
10339 2595 718 718 4 s 1508 783 0
10340 2595 718 718 5 s 1509 783 0
10341 2595 718 718 6 s 1512 783 0
10342 2595 718 718 7 s 1511 783 0
10343 2595 718 718 8 s 1510 783 0
10344 2595 718 718 9 s 2589 783 0
10345 2595 718 718 10 s 1515 783 0
10346 2595 718 718 11 s 1514 783 0
10347 2595 718 718 12 s 2590 783 0
10348 2595 718 600 15 o 3291 783 1970
10349 2745 2277 2277 1 s 2750 2742 0
10350 2745 2277 2277 2 s 2751 2742 0
10351 2745 2277 2277 3 s 2752 2742 0
10352 2745 2277 2277 4 s 1070 2742 0
10359 3626 3614 3614 1 s 3627 403 0
10360 3626 3614 3614 2 s 3628 403 0
10361 3626 3614 3614 3 s 3629 403 0
10362 3626 3614 3614 4 s 3631 403 0
10363 3626 3614 3614 5 s 3632 403 0
10364 3655 3614 3615 1 s 3636 783 0
10365 3659 3614 3615 1 s 3636 2742 0
10367 3683 3615 3615 1 s 3674 403 0
10368 3683 3615 3615 2 s 3675 403 0
10369 3683 3615 3615 3 s 3676 403 0
10370 3683 3615 3615 4 s 3678 403 0
10371 3683 3615 3615 5 s 3679 403 0
10372 3702 3615 3615 7 s 3693 783 0
10373 3702 3615 3615 8 s 3694 783 0
10374 3901 3831 3831 1 s 3884 403 0
10375 3901 3831 3831 2 s 3885 403 0
10376 3901 3831 3831 3 s 3882 403 0
10377 3901 3831 3831 4 s 3886 403 0
10378 3901 3831 3831 5 s 3887 403 0
10379 3903 3831 3831 1 s 3882 405 0
10380 3919 3831 3831 1 s 3893 783 0
10382 3919 3831 3831 2 s 3895 783 0
10384 3919 3831 3831 3 s 3888 783 0
10385 3919 3831 4537 3 s 2866 783 0
10386 3919 3831 3831 4 s 3896 783 0
10388 3919 3831 3831 5 s 3894 783 0
10390 3919 3831 3831 6 s 3897 783 0
10392 3919 3831 3831 7 s 3890 783 0
10393 3919 3831 4537 7 s 4539 783 0
10394 3919 3831 3831 8 s 3892 783 0
10395 3919 3831 4537 8 s 2873 783 0
10396 3919 3831 2283 16 s 3889 783 0
10397 3919 3831 3831 18 s 3882 783 0
10402 6158 4537 4537 3 s 2868 783 0
10403 6158 4537 3831 3 s 2867 783 0
10410 6158 4537 4537 7 s 2871 783 0
10411 6158 4537 3831 7 s 2870 783 0
10412 6158 4537 4537 8 s 2874 783 0
10413 6158 4537 3831 8 s 4540 783 0
10414 6158 4537 2283 16 s 2869 783 0
10415 6158 4537 4537 18 s 2860 783 0
10416 4199 4537 4537 1 s 2862 403 0
10417 4199 4537 4537 2 s 2863 403 0
10418 4199 4537 4537 3 s 2860 403 0
10419 4199 4537 4537 4 s 2864 403 0
10420 4199 4537 4537 5 s 2865 403 0
10421 4225 4537 4537 1 s 2860 405 0
10422 4015 600 600 11 s 4161 4000 0
10423 4015 600 600 30 s 506 4000 0
10424 4015 600 600 1 s 507 4000 0
10425 4015 600 600 5 s 508 4000 0
10426 4015 600 600 10 s 4162 4000 0
10427 4015 600 600 29 s 509 4000 0
10428 4015 600 600 6 s 510 4000 0
10429 4015 600 603 8 s 511 4000 0
10430 4015 600 600 15 o 517 4000 1970
10431 4016 600 600 11 s 4161 4000 0
10432 4016 600 600 30 s 506 4000 0
10433 4016 600 600 1 s 507 4000 0
10434 4016 600 600 5 s 508 4000 0
10435 4016 600 600 10 s 4162 4000 0
10436 4016 600 600 29 s 509 4000 0
10437 4016 600 600 6 s 510 4000 0
10438 4016 600 603 8 s 511 4000 0
10439 4016 600 600 15 o 517 4000 1970
10442 4017 25 25 3 s 98 4000 0
10445 4017 25 25 11 s 664 4000 0
10446 4017 25 25 12 s 665 4000 0
10447 4017 25 25 14 s 667 4000 0
10448 4017 25 25 15 s 666 4000 0
10449 4017 25 25 28 s 3877 4000 0
10450 4033 3802 3802 1 s 3242 403 0
10451 4033 3802 3802 2 s 3244 403 0
10452 4033 3802 3802 3 s 3240 403 0
10453 4033 3802 3802 4 s 3245 403 0
10454 4033 3802 3802 5 s 3243 403 0
10455 4034 3802 3802 1 s 3240 405 0
10456 4036 3802 3802 7 s 3246 2742 0
10457 4036 3802 25 9 s 3247 2742 0
10458 4036 3802 1009 10 s 3248 2742 0
10459 4036 3802 1009 11 s 3249 2742 0
10460 4036 3802 4072 15 s 4012 2742 0
10461 4036 3802 4072 16 s 4013 2742 0
10462 4037 3802 3802 7 s 3246 2742 0
10463 4037 3802 4072 15 s 4012 2742 0
10464 4037 3802 4072 16 s 4013 2742 0
10465 3474 3831 3831 1 s 3893 4000 0
10466 3474 3831 3831 2 s 3895 4000 0
10467 3474 3831 3831 3 s 3888 4000 0
10468 3474 3831 3831 4 s 3896 4000 0
10469 3474 3831 3831 5 s 3894 4000 0
10470 3474 3831 3831 6 s 3897 4000 0
10471 3474 3831 3831 7 s 3890 4000 0
10472 3474 3831 3831 8 s 3892 4000 0
10473 3474 3831 2283 16 s 3889 4000 0
10474 3474 3831 3831 18 s 3882 4000 0
10475 5000 603 603 1 s 493 4000 0
10476 5000 603 603 2 s 494 4000 0
10477 5000 603 603 3 s 500 4000 0
10478 5000 603 603 4 s 495 4000 0
10479 5000 603 603 5 s 496 4000 0
10480 5000 603 603 6 s 499 4000 0
10481 5000 603 603 7 s 498 4000 0
10482 5000 603 603 8 s 497 4000 0
10483 5000 603 603 9 s 2571 4000 0
10484 5000 603 603 10 s 2570 4000 0
10485 5000 603 603 11 s 2573 4000 0
10486 5000 603 603 12 s 2572 4000 0
10487 5000 603 600 15 o 606 4000 1970
10488 5008 604 604 1 s 485 4000 0
10489 5008 604 604 2 s 486 4000 0
10490 5008 604 604 3 s 492 4000 0
10491 5008 604 604 4 s 487 4000 0
10492 5008 604 604 5 s 488 4000 0
10493 5008 604 604 6 s 491 4000 0
10494 5008 604 604 7 s 490 4000 0
10495 5008 604 604 8 s 489 4000 0
10496 5008 604 604 9 s 2575 4000 0
10497 5008 604 604 10 s 2574 4000 0
10498 5008 604 604 11 s 2577 4000 0
10499 5008 604 604 12 s 2576 4000 0
10500 5008 604 600 15 o 3289 4000 1970
10501 3550 869 869 3 s 3552 783 0
10502 3550 869 869 18 s 1201 783 0
10503 3550 869 869 19 s 1202 783 0
10504 3550 869 869 20 s 1203 783 0
10505 3550 869 869 21 s 1204 783 0
10506 3550 869 869 22 s 1205 783 0
10507 3550 869 869 23 s 1206 783 0
10508 3550 869 869 24 s 931 783 0
10509 3550 869 869 25 s 932 783 0
10510 3550 869 869 26 s 933 783 0
10511 3550 869 869 27 s 934 783 0
10512 3794 869 869 3 s 3552 4000 0
10513 3794 869 869 18 s 1201 4000 0
10514 3794 869 869 19 s 1202 4000 0
10515 3794 869 869 20 s 1203 4000 0
10516 3794 869 869 21 s 1204 4000 0
10517 3794 869 869 22 s 1205 4000 0
10518 3794 869 869 23 s 1206 4000 0
10519 3794 869 869 24 s 931 4000 0
10520 3794 869 869 25 s 932 4000 0
10521 3794 869 869 26 s 933 4000 0
10522 3794 869 869 27 s 934 4000 0
10523 4064 17 17 1 s 1957 3580 0
10524 4064 17 17 2 s 1958 3580 0
10525 4064 17 17 3 s 1955 3580 0
10526 4064 17 17 4 s 1960 3580 0
10527 4064 17 17 5 s 1959 3580 0
10528 4578 17 17 1 s 1955 3580 0
10529 4062 18 18 1 s 631 3580 0
10530 4062 18 18 2 s 632 3580 0
10531 4062 18 18 3 s 92 3580 0
10532 4062 18 18 4 s 634 3580 0
10533 4062 18 18 5 s 633 3580 0
10534 4577 18 18 1 s 92 3580 0
10535 4065 19 19 1 s 660 3580 0
10536 4065 19 19 2 s 661 3580 0
10537 4065 19 19 3 s 93 3580 0
10538 4065 19 19 4 s 663 3580 0
10539 4065 19 19 5 s 662 3580 0
10540 4579 19 19 1 s 93 3580 0
10541 4054 20 20 1 s 412 3580 0
10542 4054 20 20 2 s 414 3580 0
10543 4054 20 20 3 s 410 3580 0
10544 4054 20 20 4 s 415 3580 0
10545 4054 20 20 5 s 413 3580 0
10546 4054 20 21 1 s 1870 3580 0
10547 4054 20 21 2 s 1872 3580 0
10548 4054 20 21 3 s 1868 3580 0
10549 4054 20 21 4 s 1873 3580 0
10550 4054 20 21 5 s 1871 3580 0
10551 4054 20 23 1 s 418 3580 0
10552 4054 20 23 2 s 420 3580 0
10553 4054 20 23 3 s 416 3580 0
10554 4054 20 23 4 s 430 3580 0
10555 4054 20 23 5 s 419 3580 0
10556 4054 21 21 1 s 95 3580 0
10557 4054 21 21 2 s 522 3580 0
10558 4054 21 21 3 s 94 3580 0
10559 4054 21 21 4 s 524 3580 0
10560 4054 21 21 5 s 520 3580 0
10561 4054 21 20 1 s 1864 3580 0
10562 4054 21 20 2 s 1866 3580 0
10563 4054 21 20 3 s 1862 3580 0
10564 4054 21 20 4 s 1867 3580 0
10565 4054 21 20 5 s 1865 3580 0
10566 4054 21 23 1 s 534 3580 0
10567 4054 21 23 2 s 540 3580 0
10568 4054 21 23 3 s 532 3580 0
10569 4054 21 23 4 s 542 3580 0
10570 4054 21 23 5 s 536 3580 0
10571 4054 23 23 1 s 97 3580 0
10572 4054 23 23 2 s 523 3580 0
10573 4054 23 23 3 s 96 3580 0
10574 4054 23 23 4 s 525 3580 0
10575 4054 23 23 5 s 521 3580 0
10576 4054 23 21 1 s 535 3580 0
10577 4054 23 21 2 s 541 3580 0
10578 4054 23 21 3 s 533 3580 0
10579 4054 23 21 4 s 543 3580 0
10580 4054 23 21 5 s 537 3580 0
10581 4054 23 20 1 s 37 3580 0
10582 4054 23 20 2 s 80 3580 0
10583 4054 23 20 3 s 15 3580 0
10584 4054 23 20 4 s 82 3580 0
10585 4054 23 20 5 s 76 3580 0
10586 4602 20 20 1 s 412 3580 0
10587 4602 20 20 2 s 414 3580 0
10588 4602 20 20 3 s 410 3580 0
10589 4602 20 20 4 s 415 3580 0
10590 4602 20 20 5 s 413 3580 0
10591 4602 20 21 1 s 1870 3580 0
10592 4602 20 21 2 s 1872 3580 0
10593 4602 20 21 3 s 1868 3580 0
10594 4602 20 21 4 s 1873 3580 0
10595 4602 20 21 5 s 1871 3580 0
10596 4602 20 23 1 s 418 3580 0
10597 4602 20 23 2 s 420 3580 0
10598 4602 20 23 3 s 416 3580 0
10599 4602 20 23 4 s 430 3580 0
10600 4602 20 23 5 s 419 3580 0
10601 4602 21 21 1 s 95 3580 0
10602 4602 21 21 2 s 522 3580 0
10603 4602 21 21 3 s 94 3580 0
10604 4602 21 21 4 s 524 3580 0
10605 4602 21 21 5 s 520 3580 0
10606 4602 21 20 1 s 1864 3580 0
10607 4602 21 20 2 s 1866 3580 0
10608 4602 21 20 3 s 1862 3580 0
10609 4602 21 20 4 s 1867 3580 0
10610 4602 21 20 5 s 1865 3580 0
10611 4602 21 23 1 s 534 3580 0
10612 4602 21 23 2 s 540 3580 0
10613 4602 21 23 3 s 532 3580 0
10614 4602 21 23 4 s 542 3580 0
10615 4602 21 23 5 s 536 3580 0
10616 4602 23 23 1 s 97 3580 0
10617 4602 23 23 2 s 523 3580 0
10618 4602 23 23 3 s 96 3580 0
10619 4602 23 23 4 s 525 3580 0
10620 4602 23 23 5 s 521 3580 0
10621 4602 23 21 1 s 535 3580 0
10622 4602 23 21 2 s 541 3580 0
10623 4602 23 21 3 s 533 3580 0
10624 4602 23 21 4 s 543 3580 0
10625 4602 23 21 5 s 537 3580 0
10626 4602 23 20 1 s 37 3580 0
10627 4602 23 20 2 s 80 3580 0
10628 4602 23 20 3 s 15 3580 0
10629 4602 23 20 4 s 82 3580 0
10630 4602 23 20 5 s 76 3580 0
10631 4572 20 20 1 s 410 3580 0
10632 4572 21 21 1 s 94 3580 0
10633 4572 23 23 1 s 96 3580 0
10634 4056 25 25 1 s 664 3580 0
10635 4056 25 25 2 s 665 3580 0
10636 4056 25 25 3 s 98 3580 0
10637 4056 25 25 4 s 667 3580 0
10638 4056 25 25 5 s 666 3580 0
10639 4573 25 25 1 s 98 3580 0
10640 4068 26 26 1 s 609 3580 0
10641 4068 26 26 2 s 611 3580 0
10642 4068 26 26 3 s 607 3580 0
10643 4068 26 26 4 s 612 3580 0
10644 4068 26 26 5 s 610 3580 0
10645 4606 26 26 1 s 609 3580 0
10646 4606 26 26 2 s 611 3580 0
10647 4606 26 26 3 s 607 3580 0
10648 4606 26 26 4 s 612 3580 0
10649 4606 26 26 5 s 610 3580 0
10650 4580 26 26 1 s 607 3580 0
10651 4069 27 27 1 s 2799 3580 0
10652 4069 27 27 2 s 2801 3580 0
10653 4069 27 27 3 s 387 3580 0
10654 4069 27 27 4 s 2802 3580 0
10655 4069 27 27 5 s 2800 3580 0
10656 4581 27 27 1 s 387 3580 0
10657 4607 27 27 1 s 2799 3580 0
10658 4607 27 27 2 s 2801 3580 0
10659 4607 27 27 3 s 387 3580 0
10660 4607 27 27 4 s 2802 3580 0
10661 4607 27 27 5 s 2800 3580 0
10662 4070 700 700 1 s 622 3580 0
10663 4070 700 700 2 s 624 3580 0
10664 4070 700 700 3 s 620 3580 0
10665 4070 700 700 4 s 625 3580 0
10666 4070 700 700 5 s 623 3580 0
10667 4070 700 701 1 s 1122 3580 0
10668 4070 700 701 2 s 1124 3580 0
10669 4070 700 701 3 s 1120 3580 0
10670 4070 700 701 4 s 1125 3580 0
10671 4070 700 701 5 s 1123 3580 0
10672 4070 701 700 1 s 1132 3580 0
10673 4070 701 700 2 s 1134 3580 0
10674 4070 701 700 3 s 1130 3580 0
10675 4070 701 700 4 s 1135 3580 0
10676 4070 701 700 5 s 1133 3580 0
10677 4070 701 701 1 s 672 3580 0
10678 4070 701 701 2 s 673 3580 0
10679 4070 701 701 3 s 670 3580 0
10680 4070 701 701 4 s 675 3580 0
10681 4070 701 701 5 s 674 3580 0
10682 4608 700 700 1 s 622 3580 0
10683 4608 700 700 2 s 624 3580 0
10684 4608 700 700 3 s 620 3580 0
10685 4608 700 700 4 s 625 3580 0
10686 4608 700 700 5 s 623 3580 0
10687 4608 700 701 1 s 1122 3580 0
10688 4608 700 701 2 s 1124 3580 0
10689 4608 700 701 3 s 1120 3580 0
10690 4608 700 701 4 s 1125 3580 0
10691 4608 700 701 5 s 1123 3580 0
10692 4608 701 700 1 s 1132 3580 0
10693 4608 701 700 2 s 1134 3580 0
10694 4608 701 700 3 s 1130 3580 0
10695 4608 701 700 4 s 1135 3580 0
10696 4608 701 700 5 s 1133 3580 0
10697 4608 701 701 1 s 672 3580 0
10698 4608 701 701 2 s 673 3580 0
10699 4608 701 701 3 s 670 3580 0
10700 4608 701 701 4 s 675 3580 0
10701 4608 701 701 5 s 674 3580 0
10702 4582 700 700 1 s 620 3580 0
10703 4582 701 701 1 s 670 3580 0
10704 4074 829 829 1 s 1222 3580 0
10705 4074 829 829 2 s 1223 3580 0
10706 4074 829 829 3 s 1220 3580 0
10707 4074 829 829 4 s 1225 3580 0
10708 4074 829 829 5 s 1224 3580 0
10709 4609 829 829 1 s 1222 3580 0
10710 4609 829 829 2 s 1223 3580 0
10711 4609 829 829 3 s 1220 3580 0
10712 4609 829 829 4 s 1225 3580 0
10713 4609 829 829 5 s 1224 3580 0
10714 4583 829 829 1 s 1220 3580 0
10715 4109 774 774 1 s 3364 3580 0
10716 4109 774 774 2 s 3365 3580 0
10717 4109 774 774 3 s 3362 3580 0
10718 4109 774 774 4 s 3367 3580 0
10719 4109 774 774 5 s 3366 3580 0
10720 4610 774 774 1 s 3364 3580 0
10721 4610 774 774 2 s 3365 3580 0
10722 4610 774 774 3 s 3362 3580 0
10723 4610 774 774 4 s 3367 3580 0
10724 4610 774 774 5 s 3366 3580 0
10725 4584 774 774 1 s 3362 3580 0
10726 4075 869 869 1 s 1203 3580 0
10727 4075 869 869 2 s 1204 3580 0
10728 4075 869 869 3 s 1201 3580 0
10729 4075 869 869 4 s 1206 3580 0
10730 4075 869 869 5 s 1205 3580 0
10731 4611 869 869 1 s 1203 3580 0
10732 4611 869 869 2 s 1204 3580 0
10733 4611 869 869 3 s 1201 3580 0
10734 4611 869 869 4 s 1206 3580 0
10735 4611 869 869 5 s 1205 3580 0
10736 4585 869 869 1 s 1201 3580 0
10737 4102 869 869 3 s 3552 3580 0
10738 4102 869 869 7 s 934 3580 0
10739 4102 869 869 8 s 932 3580 0
10740 4102 869 869 18 s 1201 3580 0
10741 4102 869 869 24 s 933 3580 0
10742 4102 869 869 26 s 931 3580 0
10743 4076 1042 1042 1 s 1058 3580 0
10744 4076 1042 1042 2 s 1059 3580 0
10745 4076 1042 1042 3 s 1054 3580 0
10746 4076 1042 1042 4 s 1061 3580 0
10747 4076 1042 1042 5 s 1060 3580 0
10748 4586 1042 1042 1 s 1054 3580 0
10749 4077 1083 1083 1 s 1110 3580 0
10750 4077 1083 1083 2 s 1111 3580 0
10751 4077 1083 1083 3 s 1108 3580 0
10752 4077 1083 1083 4 s 1113 3580 0
10753 4077 1083 1083 5 s 1112 3580 0
10754 4612 1083 1083 1 s 1110 3580 0
10755 4612 1083 1083 2 s 1111 3580 0
10756 4612 1083 1083 3 s 1108 3580 0
10757 4612 1083 1083 4 s 1113 3580 0
10758 4612 1083 1083 5 s 1112 3580 0
10759 4587 1083 1083 1 s 1108 3580 0
10760 4059 1114 1114 1 s 2062 3580 0
10761 4059 1114 1114 2 s 2063 3580 0
10762 4059 1114 1114 3 s 2060 3580 0
10763 4059 1114 1114 4 s 2065 3580 0
10764 4059 1114 1114 5 s 2064 3580 0
10765 4059 1114 1082 1 s 2371 3580 0
10766 4059 1114 1082 2 s 2372 3580 0
10767 4059 1114 1082 3 s 2373 3580 0
10768 4059 1114 1082 4 s 2374 3580 0
10769 4059 1114 1082 5 s 2375 3580 0
10770 4059 1114 1184 1 s 2534 3580 0
10771 4059 1114 1184 2 s 2535 3580 0
10772 4059 1114 1184 3 s 2536 3580 0
10773 4059 1114 1184 4 s 2537 3580 0
10774 4059 1114 1184 5 s 2538 3580 0
10775 4059 1082 1082 1 s 1095 3580 0
10776 4059 1082 1082 2 s 1096 3580 0
10777 4059 1082 1082 3 s 1093 3580 0
10778 4059 1082 1082 4 s 1098 3580 0
10779 4059 1082 1082 5 s 1097 3580 0
10780 4059 1082 1114 1 s 2345 3580 0
10781 4059 1082 1114 2 s 2346 3580 0
10782 4059 1082 1114 3 s 2347 3580 0
10783 4059 1082 1114 4 s 2348 3580 0
10784 4059 1082 1114 5 s 2349 3580 0
10785 4059 1082 1184 1 s 2358 3580 0
10786 4059 1082 1184 2 s 2359 3580 0
10787 4059 1082 1184 3 s 2360 3580 0
10788 4059 1082 1184 4 s 2361 3580 0
10789 4059 1082 1184 5 s 2362 3580 0
10790 4059 1184 1082 1 s 2384 3580 0
10791 4059 1184 1082 2 s 2385 3580 0
10792 4059 1184 1082 3 s 2386 3580 0
10793 4059 1184 1082 4 s 2387 3580 0
10794 4059 1184 1082 5 s 2388 3580 0
10795 4059 1184 1114 1 s 2540 3580 0
10796 4059 1184 1114 2 s 2541 3580 0
10797 4059 1184 1114 3 s 2542 3580 0
10798 4059 1184 1114 4 s 2543 3580 0
10799 4059 1184 1114 5 s 2544 3580 0
10800 4059 1184 1184 1 s 1322 3580 0
10801 4059 1184 1184 2 s 1323 3580 0
10802 4059 1184 1184 3 s 1320 3580 0
10803 4059 1184 1184 4 s 1325 3580 0
10804 4059 1184 1184 5 s 1324 3580 0
10805 4605 1114 1114 1 s 2062 3580 0
10806 4605 1114 1114 2 s 2063 3580 0
10807 4605 1114 1114 3 s 2060 3580 0
10808 4605 1114 1114 4 s 2065 3580 0
10809 4605 1114 1114 5 s 2064 3580 0
10810 4605 1114 1082 1 s 2371 3580 0
10811 4605 1114 1082 2 s 2372 3580 0
10812 4605 1114 1082 3 s 2373 3580 0
10813 4605 1114 1082 4 s 2374 3580 0
10814 4605 1114 1082 5 s 2375 3580 0
10815 4605 1114 1184 1 s 2534 3580 0
10816 4605 1114 1184 2 s 2535 3580 0
10817 4605 1114 1184 3 s 2536 3580 0
10818 4605 1114 1184 4 s 2537 3580 0
10819 4605 1114 1184 5 s 2538 3580 0
10820 4605 1082 1082 1 s 1095 3580 0
10821 4605 1082 1082 2 s 1096 3580 0
10822 4605 1082 1082 3 s 1093 3580 0
10823 4605 1082 1082 4 s 1098 3580 0
10824 4605 1082 1082 5 s 1097 3580 0
10825 4605 1082 1114 1 s 2345 3580 0
10826 4605 1082 1114 2 s 2346 3580 0
10827 4605 1082 1114 3 s 2347 3580 0
10828 4605 1082 1114 4 s 2348 3580 0
10829 4605 1082 1114 5 s 2349 3580 0
10830 4605 1082 1184 1 s 2358 3580 0
10831 4605 1082 1184 2 s 2359 3580 0
10832 4605 1082 1184 3 s 2360 3580 0
10833 4605 1082 1184 4 s 2361 3580 0
10834 4605 1082 1184 5 s 2362 3580 0
10835 4605 1184 1082 1 s 2384 3580 0
10836 4605 1184 1082 2 s 2385 3580 0
10837 4605 1184 1082 3 s 2386 3580 0
10838 4605 1184 1082 4 s 2387 3580 0
10839 4605 1184 1082 5 s 2388 3580 0
10840 4605 1184 1114 1 s 2540 3580 0
10841 4605 1184 1114 2 s 2541 3580 0
10842 4605 1184 1114 3 s 2542 3580 0
10843 4605 1184 1114 4 s 2543 3580 0
10844 4605 1184 1114 5 s 2544 3580 0
10845 4605 1184 1184 1 s 1322 3580 0
10846 4605 1184 1184 2 s 1323 3580 0
10847 4605 1184 1184 3 s 1320 3580 0
10848 4605 1184 1184 4 s 1325 3580 0
10849 4605 1184 1184 5 s 1324 3580 0
10850 4576 1114 1114 1 s 2060 3580 0
10851 4576 1082 1082 1 s 1093 3580 0
10852 4576 1184 1184 1 s 1320 3580 0
10853 4078 1186 1186 1 s 1332 3580 0
10854 4078 1186 1186 2 s 1333 3580 0
10855 4078 1186 1186 3 s 1330 3580 0
10856 4078 1186 1186 4 s 1335 3580 0
10857 4078 1186 1186 5 s 1334 3580 0
10858 4613 1186 1186 1 s 1332 3580 0
10859 4613 1186 1186 2 s 1333 3580 0
10860 4613 1186 1186 3 s 1330 3580 0
10861 4613 1186 1186 4 s 1335 3580 0
10862 4613 1186 1186 5 s 1334 3580 0
10863 4588 1186 1186 1 s 1330 3580 0
10864 4058 1266 1266 1 s 1552 3580 0
10865 4058 1266 1266 2 s 1553 3580 0
10866 4058 1266 1266 3 s 1550 3580 0
10867 4058 1266 1266 4 s 1555 3580 0
10868 4058 1266 1266 5 s 1554 3580 0
10869 4604 1266 1266 1 s 1552 3580 0
10870 4604 1266 1266 2 s 1553 3580 0
10871 4604 1266 1266 3 s 1550 3580 0
10872 4604 1266 1266 4 s 1555 3580 0
10873 4604 1266 1266 5 s 1554 3580 0
10874 4575 1266 1266 1 s 1550 3580 0
10875 4079 1560 1560 1 s 1786 3580 0
10876 4079 1560 1560 2 s 1788 3580 0
10877 4079 1560 1560 3 s 1784 3580 0
10878 4079 1560 1560 4 s 1789 3580 0
10879 4079 1560 1560 5 s 1787 3580 0
10880 4080 1562 1562 1 s 1806 3580 0
10881 4080 1562 1562 2 s 1808 3580 0
10882 4080 1562 1562 3 s 1804 3580 0
10883 4080 1562 1562 4 s 1809 3580 0
10884 4080 1562 1562 5 s 1807 3580 0
10885 4055 1700 1700 1 s 1754 3580 0
10886 4055 1700 1700 2 s 1755 3580 0
10887 4055 1700 1700 3 s 1752 3580 0
10888 4055 1700 1700 4 s 1757 3580 0
10889 4055 1700 1700 5 s 1756 3580 0
10890 4603 1700 1700 1 s 1754 3580 0
10891 4603 1700 1700 2 s 1755 3580 0
10892 4603 1700 1700 3 s 1752 3580 0
10893 4603 1700 1700 4 s 1757 3580 0
10894 4603 1700 1700 5 s 1756 3580 0
10895 4574 1700 1700 1 s 1752 3580 0
10896 4081 2950 2950 1 s 2974 3580 0
10897 4081 2950 2950 2 s 2976 3580 0
10898 4081 2950 2950 3 s 2972 3580 0
10899 4081 2950 2950 4 s 2977 3580 0
10900 4081 2950 2950 5 s 2975 3580 0
10901 4614 2950 2950 1 s 2974 3580 0
10902 4614 2950 2950 2 s 2976 3580 0
10903 4614 2950 2950 3 s 2972 3580 0
10904 4614 2950 2950 4 s 2977 3580 0
10905 4614 2950 2950 5 s 2975 3580 0
10906 4589 2950 2950 1 s 2972 3580 0
10907 4103 3831 3831 1 s 3893 3580 0
10908 4103 3831 3831 2 s 3895 3580 0
10909 4103 3831 3831 3 s 3888 3580 0
10910 4103 3831 3831 4 s 3896 3580 0
10911 4103 3831 3831 5 s 3894 3580 0
10912 4103 3831 3831 7 s 3890 3580 0
10913 4103 3831 3831 8 s 3892 3580 0
10914 4103 3831 2283 16 s 3889 3580 0
10915 4103 3831 3831 17 s 3897 3580 0
10916 4103 3831 3831 18 s 3882 3580 0
10917 4103 3831 3831 20 s 3884 3580 0
10918 4103 3831 3831 21 s 3885 3580 0
10919 4103 3831 3831 22 s 3887 3580 0
10920 4103 3831 3831 23 s 3886 3580 0
10921 4082 3220 3220 1 s 3224 3580 0
10922 4082 3220 3220 2 s 3226 3580 0
10923 4082 3220 3220 3 s 3222 3580 0
10924 4082 3220 3220 4 s 3227 3580 0
10925 4082 3220 3220 5 s 3225 3580 0
10926 4615 3220 3220 1 s 3224 3580 0
10927 4615 3220 3220 2 s 3226 3580 0
10928 4615 3220 3220 3 s 3222 3580 0
10929 4615 3220 3220 4 s 3227 3580 0
10930 4615 3220 3220 5 s 3225 3580 0
10931 4590 3220 3220 1 s 3222 3580 0
10932 4104 603 603 1 s 493 3580 0
10933 4104 603 603 2 s 494 3580 0
10934 4104 603 603 3 s 500 3580 0
10935 4104 603 603 4 s 495 3580 0
10936 4104 603 603 5 s 496 3580 0
10937 4104 603 603 6 s 499 3580 0
10938 4104 603 603 7 s 498 3580 0
10939 4104 603 603 8 s 497 3580 0
10940 4104 603 603 9 s 2571 3580 0
10941 4104 603 603 10 s 2570 3580 0
10942 4104 603 603 11 s 2573 3580 0
10943 4104 603 603 12 s 2572 3580 0
10944 4104 603 600 7 s 433 3580 0
"""

# oid family left right number proc
AMPROCS = """
10000 397 2277 2277 1 btarraycmp:382
10001 423 1560 1560 1 bitcmp:1596
10002 423 1560 1560 4 btequalimage:5051
10003 424 16 16 1 btboolcmp:1693
10004 424 16 16 4 btequalimage:5051
10005 426 1042 1042 1 bpcharcmp:1078
10006 426 1042 1042 2 bpchar_sortsupport:3328
10007 426 1042 1042 4 btvarstrequalimage:5050
10008 428 17 17 1 byteacmp:1954
10009 428 17 17 2 bytea_sortsupport:3331
10010 428 17 17 4 btequalimage:5051
10011 429 18 18 1 btcharcmp:358
10012 429 18 18 4 btequalimage:5051
10013 434 1082 1082 1 date_cmp:1092
10014 434 1082 1082 2 date_sortsupport:3136
10015 434 1082 1082 4 btequalimage:5051
10016 434 1082 1114 1 date_cmp_timestamp:2344
10017 434 1082 1184 1 date_cmp_timestamptz:2357
10018 434 1114 1114 1 timestamp_cmp:2045
10019 434 1114 1114 2 timestamp_sortsupport:3137
10020 434 1114 1114 4 btequalimage:5051
10021 434 1114 1082 1 timestamp_cmp_date:2370
10022 434 1114 1184 1 timestamp_cmp_timestamptz:2526
10023 434 1184 1184 1 timestamptz_cmp:1314
10024 434 1184 1184 2 timestamp_sortsupport:3137
10025 434 1184 1184 4 btequalimage:5051
10026 434 1184 1082 1 timestamptz_cmp_date:2383
10027 434 1184 1114 1 timestamptz_cmp_timestamp:2533
10028 434 1082 1186 3 pg_catalog.in_range:4133
10029 434 1114 1186 3 pg_catalog.in_range:4134
10030 434 1184 1186 3 pg_catalog.in_range:4135
10031 1970 700 700 1 btfloat4cmp:354
10032 1970 700 700 2 btfloat4sortsupport:3132
10033 1970 700 701 1 btfloat48cmp:2194
10034 1970 701 701 1 btfloat8cmp:355
10035 1970 701 701 2 btfloat8sortsupport:3133
10036 1970 701 700 1 btfloat84cmp:2195
10037 1970 701 701 3 pg_catalog.in_range:4139
10038 1970 700 701 3 pg_catalog.in_range:4140
10039 1974 869 869 1 network_cmp:926
10040 1974 869 869 2 network_sortsupport:5033
10041 1974 869 869 4 btequalimage:5051
10042 1976 21 21 1 btint2cmp:350
10043 1976 21 21 2 btint2sortsupport:3129
10044 1976 21 21 4 btequalimage:5051
10045 1976 21 23 1 btint24cmp:2190
10046 1976 21 20 1 btint28cmp:2192
10047 1976 21 20 3 pg_catalog.in_range:4130
10048 1976 21 23 3 pg_catalog.in_range:4131
10049 1976 21 21 3 pg_catalog.in_range:4132
10050 1976 23 23 1 btint4cmp:351
10051 1976 23 23 2 btint4sortsupport:3130
10052 1976 23 23 4 btequalimage:5051
10053 1976 23 20 1 btint48cmp:2188
10054 1976 23 21 1 btint42cmp:2191
10055 1976 23 20 3 pg_catalog.in_range:4127
10056 1976 23 23 3 pg_catalog.in_range:4128
10057 1976 23 21 3 pg_catalog.in_range:4129
10058 1976 20 20 1 btint8cmp:842
10059 1976 20 20 2 btint8sortsupport:3131
10060 1976 20 20 4 btequalimage:5051
10061 1976 20 23 1 btint84cmp:2189
10062 1976 20 21 1 btint82cmp:2193
10063 1976 20 20 3 pg_catalog.in_range:4126
10064 1982 1186 1186 1 interval_cmp:1315
10065 1982 1186 1186 3 pg_catalog.in_range:4136
10066 1984 829 829 1 macaddr_cmp:836
10067 1984 829 829 2 macaddr_sortsupport:3359
10068 1984 829 829 4 btequalimage:5051
10069 1988 1700 1700 1 numeric_cmp:1769
10070 1988 1700 1700 2 numeric_sortsupport:3283
10071 1988 1700 1700 3 pg_catalog.in_range:4141
10072 1989 26 26 1 btoidcmp:356
10073 1989 26 26 2 btoidsortsupport:3134
10074 1989 26 26 4 btequalimage:5051
10075 1991 30 30 1 btoidvectorcmp:404
10076 1991 30 30 4 btequalimage:5051
10077 1994 25 25 1 bttextcmp:360
10078 1994 25 25 2 bttextsortsupport:3255
10079 1994 25 25 4 btvarstrequalimage:5050
10080 1994 19 19 1 btnamecmp:359
10081 1994 19 19 2 btnamesortsupport:3135
10082 1994 19 19 4 btvarstrequalimage:5050
10083 1994 19 25 1 btnametextcmp:246
10084 1994 25 19 1 bttextnamecmp:253
10085 1996 1083 1083 1 time_cmp:1107
10086 1996 1083 1083 4 btequalimage:5051
10087 1996 1083 1186 3 pg_catalog.in_range:4137
10088 2000 1266 1266 1 timetz_cmp:1358
10089 2000 1266 1266 4 btequalimage:5051
10090 2000 1266 1186 3 pg_catalog.in_range:4138
10091 2002 1562 1562 1 varbitcmp:1672
10092 2002 1562 1562 4 btequalimage:5051
10093 2095 25 25 1 bttext_pattern_cmp:2166
10094 2095 25 25 2 bttext_pattern_sortsupport:3332
10095 2095 25 25 4 btequalimage:5051
10096 2097 1042 1042 1 btbpchar_pattern_cmp:2180
10097 2097 1042 1042 2 btbpchar_pattern_sortsupport:3333
10098 2097 1042 1042 4 btequalimage:5051
10099 2099 790 790 1 cash_cmp:377
10100 2099 790 790 4 btequalimage:5051
10101 2789 27 27 1 bttidcmp:2794
10102 2789 27 27 4 btequalimage:5051
10103 2968 2950 2950 1 uuid_cmp:2960
10104 2968 2950 2950 2 uuid_sortsupport:3300
10105 2968 2950 2950 4 btequalimage:5051
10106 2994 2249 2249 1 btrecordcmp:2987
10107 3194 2249 2249 1 btrecordimagecmp:3187
10108 3253 3220 3220 1 pg_lsn_cmp:3251
10109 3253 3220 3220 4 btequalimage:5051
10110 3371 774 774 1 macaddr8_cmp:4119
10111 3371 774 774 4 btequalimage:5051
10114 3626 3614 3614 1 tsvector_cmp:3622
10115 3683 3615 3615 1 tsquery_cmp:3668
10116 3901 3831 3831 1 range_cmp:3870
10117 4199 4537 4537 1 multirange_cmp:4273
10118 4033 3802 3802 1 jsonb_cmp:4044
10121 427 1042 1042 1 hashbpchar:1080
10122 427 1042 1042 2 hashbpcharextended:972
10123 431 18 18 1 hashchar:454
10124 431 18 18 2 hashcharextended:446
10125 435 1082 1082 1 hashint4:450
10126 435 1082 1082 2 hashint4extended:425
10127 627 2277 2277 1 hash_array:626
10128 627 2277 2277 2 hash_array_extended:782
10129 1971 700 700 1 hashfloat4:451
10130 1971 700 700 2 hashfloat4extended:443
10131 1971 701 701 1 hashfloat8:452
10132 1971 701 701 2 hashfloat8extended:444
10133 1975 869 869 1 hashinet:422
10134 1975 869 869 2 hashinetextended:779
10135 1977 21 21 1 hashint2:449
10136 1977 21 21 2 hashint2extended:441
10137 1977 23 23 1 hashint4:450
10138 1977 23 23 2 hashint4extended:425
10139 1977 20 20 1 hashint8:949
10140 1977 20 20 2 hashint8extended:442
10141 1983 1186 1186 1 interval_hash:1697
10142 1983 1186 1186 2 interval_hash_extended:3418
10143 1985 829 829 1 hashmacaddr:399
10144 1985 829 829 2 hashmacaddrextended:778
10145 1990 26 26 1 hashoid:453
10146 1990 26 26 2 hashoidextended:445
10147 1992 30 30 1 hashoidvector:457
10148 1992 30 30 2 hashoidvectorextended:776
10149 1995 25 25 1 hashtext:400
10150 1995 25 25 2 hashtextextended:448
10151 1995 19 19 1 hashname:455
10152 1995 19 19 2 hashnameextended:447
10153 1997 1083 1083 1 time_hash:1688
10154 1997 1083 1083 2 time_hash_extended:3409
10155 1998 1700 1700 1 hash_numeric:432
10156 1998 1700 1700 2 hash_numeric_extended:780
10157 1999 1184 1184 1 timestamp_hash:2039
10158 1999 1184 1184 2 timestamp_hash_extended:3411
10159 2001 1266 1266 1 timetz_hash:1696
10160 2001 1266 1266 2 timetz_hash_extended:3410
10161 2040 1114 1114 1 timestamp_hash:2039
10162 2040 1114 1114 2 timestamp_hash_extended:3411
10163 2222 16 16 1 hashchar:454
10164 2222 16 16 2 hashcharextended:446
10165 2223 17 17 1 hashvarlena:456
10166 2223 17 17 2 hashvarlenaextended:772
10167 2225 28 28 1 hashint4:450
10168 2225 28 28 2 hashint4extended:425
10171 2226 29 29 1 hashint4:450
10172 2226 29 29 2 hashint4extended:425
10173 2227 27 27 1 hashtid:2233
10174 2227 27 27 2 hashtidextended:2234
10175 2229 25 25 1 hashtext:400
10176 2229 25 25 2 hashtextextended:448
10177 2231 1042 1042 1 hashbpchar:1080
10178 2231 1042 1042 2 hashbpcharextended:972
10179 2235 1033 1033 1 hash_aclitem:329
10180 2235 1033 1033 2 hash_aclitem_extended:777
10181 2969 2950 2950 1 uuid_hash:2963
10182 2969 2950 2950 2 uuid_hash_extended:3412
10183 6194 2249 2249 1 hash_record:6192
10184 6194 2249 2249 2 hash_record_extended:6193
10185 3254 3220 3220 1 pg_lsn_hash:3252
10186 3254 3220 3220 2 pg_lsn_hash_extended:3413
10187 3372 774 774 1 hashmacaddr8:328
10188 3372 774 774 2 hashmacaddr8extended:781
10191 3903 3831 3831 1 hash_range:3902
10192 3903 3831 3831 2 hash_range_extended:3417
10193 4225 4537 4537 1 hash_multirange:4278
10194 4225 4537 4537 2 hash_multirange_extended:4279
10195 4034 3802 3802 1 jsonb_hash:4045
10196 4034 3802 3802 2 jsonb_hash_extended:3416
10197 1029 600 600 1 gist_point_consistent:2179
10198 1029 600 600 2 gist_box_union:2583
10199 1029 600 600 3 gist_point_compress:1030
10200 1029 600 600 5 gist_box_penalty:2581
10201 1029 600 600 6 gist_box_picksplit:2582
10202 1029 600 600 7 gist_box_same:2584
10203 1029 600 600 8 gist_point_distance:3064
10204 1029 600 600 9 gist_point_fetch:3282
10205 1029 600 600 11 gist_point_sortsupport:3435
10206 2593 603 603 1 gist_box_consistent:2578
10207 2593 603 603 2 gist_box_union:2583
10208 2593 603 603 5 gist_box_penalty:2581
10209 2593 603 603 6 gist_box_picksplit:2582
10210 2593 603 603 7 gist_box_same:2584
10211 2593 603 603 8 gist_box_distance:3998
10212 2594 604 604 1 gist_poly_consistent:2585
10213 2594 604 604 2 gist_box_union:2583
10214 2594 604 604 3 gist_poly_compress:2586
10215 2594 604 604 5 gist_box_penalty:2581
10216 2594 604 604 6 gist_box_picksplit:2582
10217 2594 604 604 7 gist_box_same:2584
10218 2594 604 604 8 gist_poly_distance:3288
10219 2595 718 718 1 gist_circle_consistent:2591
10220 2595 718 718 2 gist_box_union:2583
10221 2595 718 718 3 gist_circle_compress:2592
10222 2595 718 718 5 gist_box_penalty:2581
10223 2595 718 718 6 gist_box_picksplit:2582
10224 2595 718 718 7 gist_box_same:2584
10225 2595 718 718 8 gist_circle_distance:3280
10226 3655 3614 3614 1 pg_catalog.gtsvector_consistent:3654
10227 3655 3614 3614 2 gtsvector_union:3651
10228 3655 3614 3614 3 gtsvector_compress:3648
10229 3655 3614 3614 4 gtsvector_decompress:3649
10230 3655 3614 3614 5 gtsvector_penalty:3653
10231 3655 3614 3614 6 gtsvector_picksplit:3650
10232 3655 3614 3614 7 gtsvector_same:3652
10233 3655 3614 3614 10 gtsvector_options:3434
10234 3702 3615 3615 1 pg_catalog.gtsquery_consistent:3701
10235 3702 3615 3615 2 gtsquery_union:3698
10236 3702 3615 3615 3 gtsquery_compress:3695
10237 3702 3615 3615 5 gtsquery_penalty:3700
10238 3702 3615 3615 6 gtsquery_picksplit:3697
10239 3702 3615 3615 7 gtsquery_same:3699
10240 3919 3831 3831 1 range_gist_consistent:3875
10241 3919 3831 3831 2 range_gist_union:3876
10242 3919 3831 3831 5 range_gist_penalty:3879
10243 3919 3831 3831 6 range_gist_picksplit:3880
10244 3919 3831 3831 7 range_gist_same:3881
10245 3550 869 869 1 inet_gist_consistent:3553
10246 3550 869 869 2 inet_gist_union:3554
10247 3550 869 869 3 inet_gist_compress:3555
10248 3550 869 869 5 inet_gist_penalty:3557
10249 3550 869 869 6 inet_gist_picksplit:3558
10250 3550 869 869 7 inet_gist_same:3559
10251 3550 869 869 9 inet_gist_fetch:3573
10252 6158 4537 4537 1 multirange_gist_consistent:6154
10253 6158 4537 4537 2 range_gist_union:3876
10254 6158 4537 4537 3 multirange_gist_compress:6156
10255 6158 4537 4537 5 range_gist_penalty:3879
10256 6158 4537 4537 6 range_gist_picksplit:3880
10257 6158 4537 4537 7 range_gist_same:3881
10258 2745 2277 2277 2 pg_catalog.ginarrayextract:2743
10259 2745 2277 2277 3 ginqueryarrayextract:2774
10260 2745 2277 2277 4 ginarrayconsistent:2744
10261 2745 2277 2277 6 ginarraytriconsistent:3920
10262 3659 3614 3614 1 gin_cmp_tslexeme:3724
10263 3659 3614 3614 2 pg_catalog.gin_extract_tsvector:3656
10264 3659 3614 3614 3 pg_catalog.gin_extract_tsquery:3657
10265 3659 3614 3614 4 pg_catalog.gin_tsquery_consistent:3658
10266 3659 3614 3614 5 gin_cmp_prefix:2700
10267 3659 3614 3614 6 gin_tsquery_triconsistent:3921
10268 4036 3802 3802 1 gin_compare_jsonb:3480
10269 4036 3802 3802 2 gin_extract_jsonb:3482
10270 4036 3802 3802 3 gin_extract_jsonb_query:3483
10271 4036 3802 3802 4 gin_consistent_jsonb:3484
10272 4036 3802 3802 6 gin_triconsistent_jsonb:3488
10273 4037 3802 3802 1 btint4cmp:351
10274 4037 3802 3802 2 gin_extract_jsonb_path:3485
10275 4037 3802 3802 3 gin_extract_jsonb_query_path:3486
10276 4037 3802 3802 4 gin_consistent_jsonb_path:3487
10277 4037 3802 3802 6 gin_triconsistent_jsonb_path:3489
10278 3474 3831 3831 1 spg_range_quad_config:3469
10279 3474 3831 3831 2 spg_range_quad_choose:3470
10280 3474 3831 3831 3 spg_range_quad_picksplit:3471
10281 3474 3831 3831 4 spg_range_quad_inner_consistent:3472
10282 3474 3831 3831 5 spg_range_quad_leaf_consistent:3473
10283 3794 869 869 1 inet_spg_config:3795
10284 3794 869 869 2 inet_spg_choose:3796
10285 3794 869 869 3 inet_spg_picksplit:3797
10286 3794 869 869 4 inet_spg_inner_consistent:3798
10287 3794 869 869 5 inet_spg_leaf_consistent:3799
10288 4015 600 600 1 spg_quad_config:4018
10289 4015 600 600 2 spg_quad_choose:4019
10290 4015 600 600 3 spg_quad_picksplit:4020
10291 4015 600 600 4 spg_quad_inner_consistent:4021
10292 4015 600 600 5 spg_quad_leaf_consistent:4022
10293 4016 600 600 1 spg_kd_config:4023
10294 4016 600 600 2 spg_kd_choose:4024
10295 4016 600 600 3 spg_kd_picksplit:4025
10296 4016 600 600 4 spg_kd_inner_consistent:4026
10297 4016 600 600 5 spg_quad_leaf_consistent:4022
10298 4017 25 25 1 spg_text_config:4027
10299 4017 25 25 2 spg_text_choose:4028
10300 4017 25 25 3 spg_text_picksplit:4029
10301 4017 25 25 4 spg_text_inner_consistent:4030
10302 4017 25 25 5 spg_text_leaf_consistent:4031
10303 5000 603 603 1 spg_box_quad_config:5012
10304 5000 603 603 2 spg_box_quad_choose:5013
10305 5000 603 603 3 spg_box_quad_picksplit:5014
10306 5000 603 603 4 spg_box_quad_inner_consistent:5015
10307 5000 603 603 5 spg_box_quad_leaf_consistent:5016
10308 5008 604 604 1 spg_bbox_quad_config:5010
10309 5008 604 604 2 spg_box_quad_choose:5013
10310 5008 604 604 3 spg_box_quad_picksplit:5014
10311 5008 604 604 4 spg_box_quad_inner_consistent:5015
10312 5008 604 604 5 spg_box_quad_leaf_consistent:5016
10313 5008 604 604 6 spg_poly_quad_compress:5011
10314 4064 17 17 1 brin_minmax_opcinfo:3383
10315 4064 17 17 2 brin_minmax_add_value:3384
10316 4064 17 17 3 brin_minmax_consistent:3385
10317 4064 17 17 4 brin_minmax_union:3386
10318 4578 17 17 1 brin_bloom_opcinfo:4591
10319 4578 17 17 2 brin_bloom_add_value:4592
10320 4578 17 17 3 brin_bloom_consistent:4593
10321 4578 17 17 4 brin_bloom_union:4594
10322 4578 17 17 5 brin_bloom_options:4595
10323 4578 17 17 11 hashvarlena:456
10324 4062 18 18 1 brin_minmax_opcinfo:3383
10325 4062 18 18 2 brin_minmax_add_value:3384
10326 4062 18 18 3 brin_minmax_consistent:3385
10327 4062 18 18 4 brin_minmax_union:3386
10328 4577 18 18 1 brin_bloom_opcinfo:4591
10329 4577 18 18 2 brin_bloom_add_value:4592
10330 4577 18 18 3 brin_bloom_consistent:4593
10331 4577 18 18 4 brin_bloom_union:4594
10332 4577 18 18 5 brin_bloom_options:4595
10333 4577 18 18 11 hashchar:454
10334 4065 19 19 1 brin_minmax_opcinfo:3383
10335 4065 19 19 2 brin_minmax_add_value:3384
10336 4065 19 19 3 brin_minmax_consistent:3385
10337 4065 19 19 4 brin_minmax_union:3386
10338 4579 19 19 1 brin_bloom_opcinfo:4591
10339 4579 19 19 2 brin_bloom_add_value:4592
10340 4579 19 19 3 brin_bloom_consistent:4593
10341 4579 19 19 4 brin_bloom_union:4594
10342 4579 19 19 5 brin_bloom_options:4595
10343 4579 19 19 11 hashname:455
10344 4054 20 20 1 brin_minmax_opcinfo:3383
10345 4054 20 20 2 brin_minmax_add_value:3384
10346 4054 20 20 3 brin_minmax_consistent:3385
10347 4054 20 20 4 brin_minmax_union:3386
10348 4054 21 21 1 brin_minmax_opcinfo:3383
10349 4054 21 21 2 brin_minmax_add_value:3384
10350 4054 21 21 3 brin_minmax_consistent:3385
10351 4054 21 21 4 brin_minmax_union:3386
10352 4054 23 23 1 brin_minmax_opcinfo:3383
10353 4054 23 23 2 brin_minmax_add_value:3384
10354 4054 23 23 3 brin_minmax_consistent:3385
10355 4054 23 23 4 brin_minmax_union:3386
10356 4602 21 21 1 brin_minmax_multi_opcinfo:4616
10357 4602 21 21 2 brin_minmax_multi_add_value:4617
10358 4602 21 21 3 brin_minmax_multi_consistent:4618
10359 4602 21 21 4 brin_minmax_multi_union:4619
10360 4602 21 21 5 brin_minmax_multi_options:4620
10361 4602 21 21 11 brin_minmax_multi_distance_int2:4621
10362 4602 23 23 1 brin_minmax_multi_opcinfo:4616
10363 4602 23 23 2 brin_minmax_multi_add_value:4617
10364 4602 23 23 3 brin_minmax_multi_consistent:4618
10365 4602 23 23 4 brin_minmax_multi_union:4619
10366 4602 23 23 5 brin_minmax_multi_options:4620
10367 4602 23 23 11 brin_minmax_multi_distance_int4:4622
10368 4602 20 20 1 brin_minmax_multi_opcinfo:4616
10369 4602 20 20 2 brin_minmax_multi_add_value:4617
10370 4602 20 20 3 brin_minmax_multi_consistent:4618
10371 4602 20 20 4 brin_minmax_multi_union:4619
10372 4602 20 20 5 brin_minmax_multi_options:4620
10373 4602 20 20 11 brin_minmax_multi_distance_int8:4623
10374 4572 20 20 1 brin_bloom_opcinfo:4591
10375 4572 20 20 2 brin_bloom_add_value:4592
10376 4572 20 20 3 brin_bloom_consistent:4593
10377 4572 20 20 4 brin_bloom_union:4594
10378 4572 20 20 5 brin_bloom_options:4595
10379 4572 20 20 11 hashint8:949
10380 4572 21 21 1 brin_bloom_opcinfo:4591
10381 4572 21 21 2 brin_bloom_add_value:4592
10382 4572 21 21 3 brin_bloom_consistent:4593
10383 4572 21 21 4 brin_bloom_union:4594
10384 4572 21 21 5 brin_bloom_options:4595
10385 4572 21 21 11 hashint2:449
10386 4572 23 23 1 brin_bloom_opcinfo:4591
10387 4572 23 23 2 brin_bloom_add_value:4592
10388 4572 23 23 3 brin_bloom_consistent:4593
10389 4572 23 23 4 brin_bloom_union:4594
10390 4572 23 23 5 brin_bloom_options:4595
10391 4572 23 23 11 hashint4:450
10392 4056 25 25 1 brin_minmax_opcinfo:3383
10393 4056 25 25 2 brin_minmax_add_value:3384
10394 4056 25 25 3 brin_minmax_consistent:3385
10395 4056 25 25 4 brin_minmax_union:3386
10396 4573 25 25 1 brin_bloom_opcinfo:4591
10397 4573 25 25 2 brin_bloom_add_value:4592
10398 4573 25 25 3 brin_bloom_consistent:4593
10399 4573 25 25 4 brin_bloom_union:4594
10400 4573 25 25 5 brin_bloom_options:4595
10401 4573 25 25 11 hashtext:400
10402 4068 26 26 1 brin_minmax_opcinfo:3383
10403 4068 26 26 2 brin_minmax_add_value:3384
10404 4068 26 26 3 brin_minmax_consistent:3385
10405 4068 26 26 4 brin_minmax_union:3386
10406 4606 26 26 1 brin_minmax_multi_opcinfo:4616
10407 4606 26 26 2 brin_minmax_multi_add_value:4617
10408 4606 26 26 3 brin_minmax_multi_consistent:4618
10409 4606 26 26 4 brin_minmax_multi_union:4619
10410 4606 26 26 5 brin_minmax_multi_options:4620
10411 4606 26 26 11 brin_minmax_multi_distance_int4:4622
10412 4580 26 26 1 brin_bloom_opcinfo:4591
10413 4580 26 26 2 brin_bloom_add_value:4592
10414 4580 26 26 3 brin_bloom_consistent:4593
10415 4580 26 26 4 brin_bloom_union:4594
10416 4580 26 26 5 brin_bloom_options:4595
10417 4580 26 26 11 hashoid:453
10418 4069 27 27 1 brin_minmax_opcinfo:3383
10419 4069 27 27 2 brin_minmax_add_value:3384
10420 4069 27 27 3 brin_minmax_consistent:3385
10421 4069 27 27 4 brin_minmax_union:3386
10422 4581 27 27 1 brin_bloom_opcinfo:4591
10423 4581 27 27 2 brin_bloom_add_value:4592
10424 4581 27 27 3 brin_bloom_consistent:4593
10425 4581 27 27 4 brin_bloom_union:4594
10426 4581 27 27 5 brin_bloom_options:4595
10427 4581 27 27 11 hashtid:2233
10428 4607 27 27 1 brin_minmax_multi_opcinfo:4616
10429 4607 27 27 2 brin_minmax_multi_add_value:4617
10430 4607 27 27 3 brin_minmax_multi_consistent:4618
10431 4607 27 27 4 brin_minmax_multi_union:4619
10432 4607 27 27 5 brin_minmax_multi_options:4620
10433 4607 27 27 11 brin_minmax_multi_distance_tid:4627
10434 4070 700 700 1 brin_minmax_opcinfo:3383
10435 4070 700 700 2 brin_minmax_add_value:3384
10436 4070 700 700 3 brin_minmax_consistent:3385
10437 4070 700 700 4 brin_minmax_union:3386
10438 4070 701 701 1 brin_minmax_opcinfo:3383
10439 4070 701 701 2 brin_minmax_add_value:3384
10440 4070 701 701 3 brin_minmax_consistent:3385
10441 4070 701 701 4 brin_minmax_union:3386
10442 4608 700 700 1 brin_minmax_multi_opcinfo:4616
10443 4608 700 700 2 brin_minmax_multi_add_value:4617
10444 4608 700 700 3 brin_minmax_multi_consistent:4618
10445 4608 700 700 4 brin_minmax_multi_union:4619
10446 4608 700 700 5 brin_minmax_multi_options:4620
10447 4608 700 700 11 brin_minmax_multi_distance_float4:4624
10448 4608 701 701 1 brin_minmax_multi_opcinfo:4616
10449 4608 701 701 2 brin_minmax_multi_add_value:4617
10450 4608 701 701 3 brin_minmax_multi_consistent:4618
10451 4608 701 701 4 brin_minmax_multi_union:4619
10452 4608 701 701 5 brin_minmax_multi_options:4620
10453 4608 701 701 11 brin_minmax_multi_distance_float8:4625
10454 4582 700 700 1 brin_bloom_opcinfo:4591
10455 4582 700 700 2 brin_bloom_add_value:4592
10456 4582 700 700 3 brin_bloom_consistent:4593
10457 4582 700 700 4 brin_bloom_union:4594
10458 4582 700 700 5 brin_bloom_options:4595
10459 4582 700 700 11 hashfloat4:451
10460 4582 701 701 1 brin_bloom_opcinfo:4591
10461 4582 701 701 2 brin_bloom_add_value:4592
10462 4582 701 701 3 brin_bloom_consistent:4593
10463 4582 701 701 4 brin_bloom_union:4594
10464 4582 701 701 5 brin_bloom_options:4595
10465 4582 701 701 11 hashfloat8:452
10466 4074 829 829 1 brin_minmax_opcinfo:3383
10467 4074 829 829 2 brin_minmax_add_value:3384
10468 4074 829 829 3 brin_minmax_consistent:3385
10469 4074 829 829 4 brin_minmax_union:3386
10470 4609 829 829 1 brin_minmax_multi_opcinfo:4616
10471 4609 829 829 2 brin_minmax_multi_add_value:4617
10472 4609 829 829 3 brin_minmax_multi_consistent:4618
10473 4609 829 829 4 brin_minmax_multi_union:4619
10474 4609 829 829 5 brin_minmax_multi_options:4620
10475 4609 829 829 11 brin_minmax_multi_distance_macaddr:4634
10476 4583 829 829 1 brin_bloom_opcinfo:4591
10477 4583 829 829 2 brin_bloom_add_value:4592
10478 4583 829 829 3 brin_bloom_consistent:4593
10479 4583 829 829 4 brin_bloom_union:4594
10480 4583 829 829 5 brin_bloom_options:4595
10481 4583 829 829 11 hashmacaddr:399
10482 4109 774 774 1 brin_minmax_opcinfo:3383
10483 4109 774 774 2 brin_minmax_add_value:3384
10484 4109 774 774 3 brin_minmax_consistent:3385
10485 4109 774 774 4 brin_minmax_union:3386
10486 4610 774 774 1 brin_minmax_multi_opcinfo:4616
10487 4610 774 774 2 brin_minmax_multi_add_value:4617
10488 4610 774 774 3 brin_minmax_multi_consistent:4618
10489 4610 774 774 4 brin_minmax_multi_union:4619
10490 4610 774 774 5 brin_minmax_multi_options:4620
10491 4610 774 774 11 brin_minmax_multi_distance_macaddr8:4635
10492 4584 774 774 1 brin_bloom_opcinfo:4591
10493 4584 774 774 2 brin_bloom_add_value:4592
10494 4584 774 774 3 brin_bloom_consistent:4593
10495 4584 774 774 4 brin_bloom_union:4594
10496 4584 774 774 5 brin_bloom_options:4595
10497 4584 774 774 11 hashmacaddr8:328
10498 4075 869 869 1 brin_minmax_opcinfo:3383
10499 4075 869 869 2 brin_minmax_add_value:3384
10500 4075 869 869 3 brin_minmax_consistent:3385
10501 4075 869 869 4 brin_minmax_union:3386
10502 4611 869 869 1 brin_minmax_multi_opcinfo:4616
10503 4611 869 869 2 brin_minmax_multi_add_value:4617
10504 4611 869 869 3 brin_minmax_multi_consistent:4618
10505 4611 869 869 4 brin_minmax_multi_union:4619
10506 4611 869 869 5 brin_minmax_multi_options:4620
10507 4611 869 869 11 brin_minmax_multi_distance_inet:4636
10508 4585 869 869 1 brin_bloom_opcinfo:4591
10509 4585 869 869 2 brin_bloom_add_value:4592
10510 4585 869 869 3 brin_bloom_consistent:4593
10511 4585 869 869 4 brin_bloom_union:4594
10512 4585 869 869 5 brin_bloom_options:4595
10513 4585 869 869 11 hashinet:422
10514 4102 869 869 1 brin_inclusion_opcinfo:4105
10515 4102 869 869 2 brin_inclusion_add_value:4106
10516 4102 869 869 3 brin_inclusion_consistent:4107
10517 4102 869 869 4 brin_inclusion_union:4108
10518 4102 869 869 11 inet_merge:4063
10519 4102 869 869 12 inet_same_family:4071
10520 4102 869 869 13 network_supeq:930
10521 4076 1042 1042 1 brin_minmax_opcinfo:3383
10522 4076 1042 1042 2 brin_minmax_add_value:3384
10523 4076 1042 1042 3 brin_minmax_consistent:3385
10524 4076 1042 1042 4 brin_minmax_union:3386
10525 4586 1042 1042 1 brin_bloom_opcinfo:4591
10526 4586 1042 1042 2 brin_bloom_add_value:4592
10527 4586 1042 1042 3 brin_bloom_consistent:4593
10528 4586 1042 1042 4 brin_bloom_union:4594
10529 4586 1042 1042 5 brin_bloom_options:4595
10530 4586 1042 1042 11 hashbpchar:1080
10531 4077 1083 1083 1 brin_minmax_opcinfo:3383
10532 4077 1083 1083 2 brin_minmax_add_value:3384
10533 4077 1083 1083 3 brin_minmax_consistent:3385
10534 4077 1083 1083 4 brin_minmax_union:3386
10535 4612 1083 1083 1 brin_minmax_multi_opcinfo:4616
10536 4612 1083 1083 2 brin_minmax_multi_add_value:4617
10537 4612 1083 1083 3 brin_minmax_multi_consistent:4618
10538 4612 1083 1083 4 brin_minmax_multi_union:4619
10539 4612 1083 1083 5 brin_minmax_multi_options:4620
10540 4612 1083 1083 11 brin_minmax_multi_distance_time:4630
10541 4587 1083 1083 1 brin_bloom_opcinfo:4591
10542 4587 1083 1083 2 brin_bloom_add_value:4592
10543 4587 1083 1083 3 brin_bloom_consistent:4593
10544 4587 1083 1083 4 brin_bloom_union:4594
10545 4587 1083 1083 5 brin_bloom_options:4595
10546 4587 1083 1083 11 time_hash:1688
10547 4059 1114 1114 1 brin_minmax_opcinfo:3383
10548 4059 1114 1114 2 brin_minmax_add_value:3384
10549 4059 1114 1114 3 brin_minmax_consistent:3385
10550 4059 1114 1114 4 brin_minmax_union:3386
10551 4059 1184 1184 1 brin_minmax_opcinfo:3383
10552 4059 1184 1184 2 brin_minmax_add_value:3384
10553 4059 1184 1184 3 brin_minmax_consistent:3385
10554 4059 1184 1184 4 brin_minmax_union:3386
10555 4059 1082 1082 1 brin_minmax_opcinfo:3383
10556 4059 1082 1082 2 brin_minmax_add_value:3384
10557 4059 1082 1082 3 brin_minmax_consistent:3385
10558 4059 1082 1082 4 brin_minmax_union:3386
10559 4605 1114 1114 1 brin_minmax_multi_opcinfo:4616
10560 4605 1114 1114 2 brin_minmax_multi_add_value:4617
10561 4605 1114 1114 3 brin_minmax_multi_consistent:4618
10562 4605 1114 1114 4 brin_minmax_multi_union:4619
10563 4605 1114 1114 5 brin_minmax_multi_options:4620
10564 4605 1114 1114 11 brin_minmax_multi_distance_timestamp:4637
10565 4605 1184 1184 1 brin_minmax_multi_opcinfo:4616
10566 4605 1184 1184 2 brin_minmax_multi_add_value:4617
10567 4605 1184 1184 3 brin_minmax_multi_consistent:4618
10568 4605 1184 1184 4 brin_minmax_multi_union:4619
10569 4605 1184 1184 5 brin_minmax_multi_options:4620
10570 4605 1184 1184 11 brin_minmax_multi_distance_timestamp:4637
10571 4605 1082 1082 1 brin_minmax_multi_opcinfo:4616
10572 4605 1082 1082 2 brin_minmax_multi_add_value:4617
10573 4605 1082 1082 3 brin_minmax_multi_consistent:4618
10574 4605 1082 1082 4 brin_minmax_multi_union:4619
10575 4605 1082 1082 5 brin_minmax_multi_options:4620
10576 4605 1082 1082 11 brin_minmax_multi_distance_date:4629
10577 4576 1114 1114 1 brin_bloom_opcinfo:4591
10578 4576 1114 1114 2 brin_bloom_add_value:4592
10579 4576 1114 1114 3 brin_bloom_consistent:4593
10580 4576 1114 1114 4 brin_bloom_union:4594
10581 4576 1114 1114 5 brin_bloom_options:4595
10582 4576 1114 1114 11 timestamp_hash:2039
10583 4576 1184 1184 1 brin_bloom_opcinfo:4591
10584 4576 1184 1184 2 brin_bloom_add_value:4592
10585 4576 1184 1184 3 brin_bloom_consistent:4593
10586 4576 1184 1184 4 brin_bloom_union:4594
10587 4576 1184 1184 5 brin_bloom_options:4595
10588 4576 1184 1184 11 timestamp_hash:2039
10589 4576 1082 1082 1 brin_bloom_opcinfo:4591
10590 4576 1082 1082 2 brin_bloom_add_value:4592
10591 4576 1082 1082 3 brin_bloom_consistent:4593
10592 4576 1082 1082 4 brin_bloom_union:4594
10593 4576 1082 1082 5 brin_bloom_options:4595
10594 4576 1082 1082 11 hashint4:450
10595 4078 1186 1186 1 brin_minmax_opcinfo:3383
10596 4078 1186 1186 2 brin_minmax_add_value:3384
10597 4078 1186 1186 3 brin_minmax_consistent:3385
10598 4078 1186 1186 4 brin_minmax_union:3386
10599 4613 1186 1186 1 brin_minmax_multi_opcinfo:4616
10600 4613 1186 1186 2 brin_minmax_multi_add_value:4617
10601 4613 1186 1186 3 brin_minmax_multi_consistent:4618
10602 4613 1186 1186 4 brin_minmax_multi_union:4619
10603 4613 1186 1186 5 brin_minmax_multi_options:4620
10604 4613 1186 1186 11 brin_minmax_multi_distance_interval:4631
10605 4588 1186 1186 1 brin_bloom_opcinfo:4591
10606 4588 1186 1186 2 brin_bloom_add_value:4592
10607 4588 1186 1186 3 brin_bloom_consistent:4593
10608 4588 1186 1186 4 brin_bloom_union:4594
10609 4588 1186 1186 5 brin_bloom_options:4595
10610 4588 1186 1186 11 interval_hash:1697
10611 4058 1266 1266 1 brin_minmax_opcinfo:3383
10612 4058 1266 1266 2 brin_minmax_add_value:3384
10613 4058 1266 1266 3 brin_minmax_consistent:3385
10614 4058 1266 1266 4 brin_minmax_union:3386
10615 4604 1266 1266 1 brin_minmax_multi_opcinfo:4616
10616 4604 1266 1266 2 brin_minmax_multi_add_value:4617
10617 4604 1266 1266 3 brin_minmax_multi_consistent:4618
10618 4604 1266 1266 4 brin_minmax_multi_union:4619
10619 4604 1266 1266 5 brin_minmax_multi_options:4620
10620 4604 1266 1266 11 brin_minmax_multi_distance_timetz:4632
10621 4575 1266 1266 1 brin_bloom_opcinfo:4591
10622 4575 1266 1266 2 brin_bloom_add_value:4592
10623 4575 1266 1266 3 brin_bloom_consistent:4593
10624 4575 1266 1266 4 brin_bloom_union:4594
10625 4575 1266 1266 5 brin_bloom_options:4595
10626 4575 1266 1266 11 timetz_hash:1696
10627 4079 1560 1560 1 brin_minmax_opcinfo:3383
10628 4079 1560 1560 2 brin_minmax_add_value:3384
10629 4079 1560 1560 3 brin_minmax_consistent:3385
10630 4079 1560 1560 4 brin_minmax_union:3386
10631 4080 1562 1562 1 brin_minmax_opcinfo:3383
10632 4080 1562 1562 2 brin_minmax_add_value:3384
10633 4080 1562 1562 3 brin_minmax_consistent:3385
10634 4080 1562 1562 4 brin_minmax_union:3386
10635 4055 1700 1700 1 brin_minmax_opcinfo:3383
10636 4055 1700 1700 2 brin_minmax_add_value:3384
10637 4055 1700 1700 3 brin_minmax_consistent:3385
10638 4055 1700 1700 4 brin_minmax_union:3386
10639 4603 1700 1700 1 brin_minmax_multi_opcinfo:4616
10640 4603 1700 1700 2 brin_minmax_multi_add_value:4617
10641 4603 1700 1700 3 brin_minmax_multi_consistent:4618
10642 4603 1700 1700 4 brin_minmax_multi_union:4619
10643 4603 1700 1700 5 brin_minmax_multi_options:4620
10644 4603 1700 1700 11 brin_minmax_multi_distance_numeric:4626
10645 4574 1700 1700 1 brin_bloom_opcinfo:4591
10646 4574 1700 1700 2 brin_bloom_add_value:4592
10647 4574 1700 1700 3 brin_bloom_consistent:4593
10648 4574 1700 1700 4 brin_bloom_union:4594
10649 4574 1700 1700 5 brin_bloom_options:4595
10650 4574 1700 1700 11 hash_numeric:432
10651 4081 2950 2950 1 brin_minmax_opcinfo:3383
10652 4081 2950 2950 2 brin_minmax_add_value:3384
10653 4081 2950 2950 3 brin_minmax_consistent:3385
10654 4081 2950 2950 4 brin_minmax_union:3386
10655 4614 2950 2950 1 brin_minmax_multi_opcinfo:4616
10656 4614 2950 2950 2 brin_minmax_multi_add_value:4617
10657 4614 2950 2950 3 brin_minmax_multi_consistent:4618
10658 4614 2950 2950 4 brin_minmax_multi_union:4619
10659 4614 2950 2950 5 brin_minmax_multi_options:4620
10660 4614 2950 2950 11 brin_minmax_multi_distance_uuid:4628
10661 4589 2950 2950 1 brin_bloom_opcinfo:4591
10662 4589 2950 2950 2 brin_bloom_add_value:4592
10663 4589 2950 2950 3 brin_bloom_consistent:4593
10664 4589 2950 2950 4 brin_bloom_union:4594
10665 4589 2950 2950 5 brin_bloom_options:4595
10666 4589 2950 2950 11 uuid_hash:2963
10667 4103 3831 3831 1 brin_inclusion_opcinfo:4105
10668 4103 3831 3831 2 brin_inclusion_add_value:4106
10669 4103 3831 3831 3 brin_inclusion_consistent:4107
10670 4103 3831 3831 4 brin_inclusion_union:4108
10671 4103 3831 3831 11 pg_catalog.range_merge:4057
10672 4103 3831 3831 13 range_contains:3859
10673 4103 3831 3831 14 pg_catalog.isempty:3850
10674 4082 3220 3220 1 brin_minmax_opcinfo:3383
10675 4082 3220 3220 2 brin_minmax_add_value:3384
10676 4082 3220 3220 3 brin_minmax_consistent:3385
10677 4082 3220 3220 4 brin_minmax_union:3386
10678 4615 3220 3220 1 brin_minmax_multi_opcinfo:4616
10679 4615 3220 3220 2 brin_minmax_multi_add_value:4617
10680 4615 3220 3220 3 brin_minmax_multi_consistent:4618
10681 4615 3220 3220 4 brin_minmax_multi_union:4619
10682 4615 3220 3220 5 brin_minmax_multi_options:4620
10683 4615 3220 3220 11 brin_minmax_multi_distance_pg_lsn:4633
10684 4590 3220 3220 1 brin_bloom_opcinfo:4591
10685 4590 3220 3220 2 brin_bloom_add_value:4592
10686 4590 3220 3220 3 brin_bloom_consistent:4593
10687 4590 3220 3220 4 brin_bloom_union:4594
10688 4590 3220 3220 5 brin_bloom_options:4595
10689 4590 3220 3220 11 pg_lsn_hash:3252
10690 4104 603 603 1 brin_inclusion_opcinfo:4105
10691 4104 603 603 2 brin_inclusion_add_value:4106
10692 4104 603 603 3 brin_inclusion_consistent:4107
10693 4104 603 603 4 brin_inclusion_union:4108
10694 4104 603 603 11 bound_box:4067
10695 4104 603 603 13 box_contain:187
"""

# the support functions as regprocedure, for pg_describe_object
AMPROC_SIGNATURES: dict[int, str] = {
    10000: 'btarraycmp(anyarray,anyarray)',
    10001: 'bitcmp(bit,bit)',
    10002: 'btequalimage(oid)',
    10003: 'btboolcmp(boolean,boolean)',
    10004: 'btequalimage(oid)',
    10005: 'bpcharcmp(character,character)',
    10006: 'bpchar_sortsupport(internal)',
    10007: 'btvarstrequalimage(oid)',
    10008: 'byteacmp(bytea,bytea)',
    10009: 'bytea_sortsupport(internal)',
    10010: 'btequalimage(oid)',
    10011: 'btcharcmp("char","char")',
    10012: 'btequalimage(oid)',
    10013: 'date_cmp(date,date)',
    10014: 'date_sortsupport(internal)',
    10015: 'btequalimage(oid)',
    10016: 'date_cmp_timestamp(date,timestamp without time zone)',
    10017: 'date_cmp_timestamptz(date,timestamp with time zone)',
    10018: 'timestamp_cmp(timestamp without time zone,timestamp without time zone)',
    10019: 'timestamp_sortsupport(internal)',
    10020: 'btequalimage(oid)',
    10021: 'timestamp_cmp_date(timestamp without time zone,date)',
    10022: 'timestamp_cmp_timestamptz(timestamp without time zone,timestamp with time zone)',
    10023: 'timestamptz_cmp(timestamp with time zone,timestamp with time zone)',
    10024: 'timestamp_sortsupport(internal)',
    10025: 'btequalimage(oid)',
    10026: 'timestamptz_cmp_date(timestamp with time zone,date)',
    10027: 'timestamptz_cmp_timestamp(timestamp with time zone,timestamp without time zone)',
    10028: 'in_range(date,date,interval,boolean,boolean)',
    10029: 'in_range(timestamp without time zone,timestamp without time zone,interval,boolean,boolean)',
    10030: 'in_range(timestamp with time zone,timestamp with time zone,interval,boolean,boolean)',
    10031: 'btfloat4cmp(real,real)',
    10032: 'btfloat4sortsupport(internal)',
    10033: 'btfloat48cmp(real,double precision)',
    10034: 'btfloat8cmp(double precision,double precision)',
    10035: 'btfloat8sortsupport(internal)',
    10036: 'btfloat84cmp(double precision,real)',
    10037: 'in_range(double precision,double precision,double precision,boolean,boolean)',
    10038: 'in_range(real,real,double precision,boolean,boolean)',
    10039: 'network_cmp(inet,inet)',
    10040: 'network_sortsupport(internal)',
    10041: 'btequalimage(oid)',
    10042: 'btint2cmp(smallint,smallint)',
    10043: 'btint2sortsupport(internal)',
    10044: 'btequalimage(oid)',
    10045: 'btint24cmp(smallint,integer)',
    10046: 'btint28cmp(smallint,bigint)',
    10047: 'in_range(smallint,smallint,bigint,boolean,boolean)',
    10048: 'in_range(smallint,smallint,integer,boolean,boolean)',
    10049: 'in_range(smallint,smallint,smallint,boolean,boolean)',
    10050: 'btint4cmp(integer,integer)',
    10051: 'btint4sortsupport(internal)',
    10052: 'btequalimage(oid)',
    10053: 'btint48cmp(integer,bigint)',
    10054: 'btint42cmp(integer,smallint)',
    10055: 'in_range(integer,integer,bigint,boolean,boolean)',
    10056: 'in_range(integer,integer,integer,boolean,boolean)',
    10057: 'in_range(integer,integer,smallint,boolean,boolean)',
    10058: 'btint8cmp(bigint,bigint)',
    10059: 'btint8sortsupport(internal)',
    10060: 'btequalimage(oid)',
    10061: 'btint84cmp(bigint,integer)',
    10062: 'btint82cmp(bigint,smallint)',
    10063: 'in_range(bigint,bigint,bigint,boolean,boolean)',
    10064: 'interval_cmp(interval,interval)',
    10065: 'in_range(interval,interval,interval,boolean,boolean)',
    10066: 'macaddr_cmp(macaddr,macaddr)',
    10067: 'macaddr_sortsupport(internal)',
    10068: 'btequalimage(oid)',
    10069: 'numeric_cmp(numeric,numeric)',
    10070: 'numeric_sortsupport(internal)',
    10071: 'in_range(numeric,numeric,numeric,boolean,boolean)',
    10072: 'btoidcmp(oid,oid)',
    10073: 'btoidsortsupport(internal)',
    10074: 'btequalimage(oid)',
    10075: 'btoidvectorcmp(oidvector,oidvector)',
    10076: 'btequalimage(oid)',
    10077: 'bttextcmp(text,text)',
    10078: 'bttextsortsupport(internal)',
    10079: 'btvarstrequalimage(oid)',
    10080: 'btnamecmp(name,name)',
    10081: 'btnamesortsupport(internal)',
    10082: 'btvarstrequalimage(oid)',
    10083: 'btnametextcmp(name,text)',
    10084: 'bttextnamecmp(text,name)',
    10085: 'time_cmp(time without time zone,time without time zone)',
    10086: 'btequalimage(oid)',
    10087: 'in_range(time without time zone,time without time zone,interval,boolean,boolean)',
    10088: 'timetz_cmp(time with time zone,time with time zone)',
    10089: 'btequalimage(oid)',
    10090: 'in_range(time with time zone,time with time zone,interval,boolean,boolean)',
    10091: 'varbitcmp(bit varying,bit varying)',
    10092: 'btequalimage(oid)',
    10093: 'bttext_pattern_cmp(text,text)',
    10094: 'bttext_pattern_sortsupport(internal)',
    10095: 'btequalimage(oid)',
    10096: 'btbpchar_pattern_cmp(character,character)',
    10097: 'btbpchar_pattern_sortsupport(internal)',
    10098: 'btequalimage(oid)',
    10099: 'cash_cmp(money,money)',
    10100: 'btequalimage(oid)',
    10101: 'bttidcmp(tid,tid)',
    10102: 'btequalimage(oid)',
    10103: 'uuid_cmp(uuid,uuid)',
    10104: 'uuid_sortsupport(internal)',
    10105: 'btequalimage(oid)',
    10106: 'btrecordcmp(record,record)',
    10107: 'btrecordimagecmp(record,record)',
    10108: 'pg_lsn_cmp(pg_lsn,pg_lsn)',
    10109: 'btequalimage(oid)',
    10110: 'macaddr8_cmp(macaddr8,macaddr8)',
    10111: 'btequalimage(oid)',
    10114: 'tsvector_cmp(tsvector,tsvector)',
    10115: 'tsquery_cmp(tsquery,tsquery)',
    10116: 'range_cmp(anyrange,anyrange)',
    10117: 'multirange_cmp(anymultirange,anymultirange)',
    10118: 'jsonb_cmp(jsonb,jsonb)',
    10121: 'hashbpchar(character)',
    10122: 'hashbpcharextended(character,bigint)',
    10123: 'hashchar("char")',
    10124: 'hashcharextended("char",bigint)',
    10125: 'hashint4(integer)',
    10126: 'hashint4extended(integer,bigint)',
    10127: 'hash_array(anyarray)',
    10128: 'hash_array_extended(anyarray,bigint)',
    10129: 'hashfloat4(real)',
    10130: 'hashfloat4extended(real,bigint)',
    10131: 'hashfloat8(double precision)',
    10132: 'hashfloat8extended(double precision,bigint)',
    10133: 'hashinet(inet)',
    10134: 'hashinetextended(inet,bigint)',
    10135: 'hashint2(smallint)',
    10136: 'hashint2extended(smallint,bigint)',
    10137: 'hashint4(integer)',
    10138: 'hashint4extended(integer,bigint)',
    10139: 'hashint8(bigint)',
    10140: 'hashint8extended(bigint,bigint)',
    10141: 'interval_hash(interval)',
    10142: 'interval_hash_extended(interval,bigint)',
    10143: 'hashmacaddr(macaddr)',
    10144: 'hashmacaddrextended(macaddr,bigint)',
    10145: 'hashoid(oid)',
    10146: 'hashoidextended(oid,bigint)',
    10147: 'hashoidvector(oidvector)',
    10148: 'hashoidvectorextended(oidvector,bigint)',
    10149: 'hashtext(text)',
    10150: 'hashtextextended(text,bigint)',
    10151: 'hashname(name)',
    10152: 'hashnameextended(name,bigint)',
    10153: 'time_hash(time without time zone)',
    10154: 'time_hash_extended(time without time zone,bigint)',
    10155: 'hash_numeric(numeric)',
    10156: 'hash_numeric_extended(numeric,bigint)',
    10157: 'timestamp_hash(timestamp without time zone)',
    10158: 'timestamp_hash_extended(timestamp without time zone,bigint)',
    10159: 'timetz_hash(time with time zone)',
    10160: 'timetz_hash_extended(time with time zone,bigint)',
    10161: 'timestamp_hash(timestamp without time zone)',
    10162: 'timestamp_hash_extended(timestamp without time zone,bigint)',
    10163: 'hashchar("char")',
    10164: 'hashcharextended("char",bigint)',
    10165: 'hashvarlena(internal)',
    10166: 'hashvarlenaextended(internal,bigint)',
    10167: 'hashint4(integer)',
    10168: 'hashint4extended(integer,bigint)',
    10171: 'hashint4(integer)',
    10172: 'hashint4extended(integer,bigint)',
    10173: 'hashtid(tid)',
    10174: 'hashtidextended(tid,bigint)',
    10175: 'hashtext(text)',
    10176: 'hashtextextended(text,bigint)',
    10177: 'hashbpchar(character)',
    10178: 'hashbpcharextended(character,bigint)',
    10179: 'hash_aclitem(aclitem)',
    10180: 'hash_aclitem_extended(aclitem,bigint)',
    10181: 'uuid_hash(uuid)',
    10182: 'uuid_hash_extended(uuid,bigint)',
    10183: 'hash_record(record)',
    10184: 'hash_record_extended(record,bigint)',
    10185: 'pg_lsn_hash(pg_lsn)',
    10186: 'pg_lsn_hash_extended(pg_lsn,bigint)',
    10187: 'hashmacaddr8(macaddr8)',
    10188: 'hashmacaddr8extended(macaddr8,bigint)',
    10191: 'hash_range(anyrange)',
    10192: 'hash_range_extended(anyrange,bigint)',
    10193: 'hash_multirange(anymultirange)',
    10194: 'hash_multirange_extended(anymultirange,bigint)',
    10195: 'jsonb_hash(jsonb)',
    10196: 'jsonb_hash_extended(jsonb,bigint)',
    10197: 'gist_point_consistent(internal,point,smallint,oid,internal)',
    10198: 'gist_box_union(internal,internal)',
    10199: 'gist_point_compress(internal)',
    10200: 'gist_box_penalty(internal,internal,internal)',
    10201: 'gist_box_picksplit(internal,internal)',
    10202: 'gist_box_same(box,box,internal)',
    10203: 'gist_point_distance(internal,point,smallint,oid,internal)',
    10204: 'gist_point_fetch(internal)',
    10205: 'gist_point_sortsupport(internal)',
    10206: 'gist_box_consistent(internal,box,smallint,oid,internal)',
    10207: 'gist_box_union(internal,internal)',
    10208: 'gist_box_penalty(internal,internal,internal)',
    10209: 'gist_box_picksplit(internal,internal)',
    10210: 'gist_box_same(box,box,internal)',
    10211: 'gist_box_distance(internal,box,smallint,oid,internal)',
    10212: 'gist_poly_consistent(internal,polygon,smallint,oid,internal)',
    10213: 'gist_box_union(internal,internal)',
    10214: 'gist_poly_compress(internal)',
    10215: 'gist_box_penalty(internal,internal,internal)',
    10216: 'gist_box_picksplit(internal,internal)',
    10217: 'gist_box_same(box,box,internal)',
    10218: 'gist_poly_distance(internal,polygon,smallint,oid,internal)',
    10219: 'gist_circle_consistent(internal,circle,smallint,oid,internal)',
    10220: 'gist_box_union(internal,internal)',
    10221: 'gist_circle_compress(internal)',
    10222: 'gist_box_penalty(internal,internal,internal)',
    10223: 'gist_box_picksplit(internal,internal)',
    10224: 'gist_box_same(box,box,internal)',
    10225: 'gist_circle_distance(internal,circle,smallint,oid,internal)',
    10226: 'gtsvector_consistent(internal,tsvector,smallint,oid,internal)',
    10227: 'gtsvector_union(internal,internal)',
    10228: 'gtsvector_compress(internal)',
    10229: 'gtsvector_decompress(internal)',
    10230: 'gtsvector_penalty(internal,internal,internal)',
    10231: 'gtsvector_picksplit(internal,internal)',
    10232: 'gtsvector_same(gtsvector,gtsvector,internal)',
    10233: 'gtsvector_options(internal)',
    10234: 'gtsquery_consistent(internal,tsquery,smallint,oid,internal)',
    10235: 'gtsquery_union(internal,internal)',
    10236: 'gtsquery_compress(internal)',
    10237: 'gtsquery_penalty(internal,internal,internal)',
    10238: 'gtsquery_picksplit(internal,internal)',
    10239: 'gtsquery_same(bigint,bigint,internal)',
    10240: 'range_gist_consistent(internal,anyrange,smallint,oid,internal)',
    10241: 'range_gist_union(internal,internal)',
    10242: 'range_gist_penalty(internal,internal,internal)',
    10243: 'range_gist_picksplit(internal,internal)',
    10244: 'range_gist_same(anyrange,anyrange,internal)',
    10245: 'inet_gist_consistent(internal,inet,smallint,oid,internal)',
    10246: 'inet_gist_union(internal,internal)',
    10247: 'inet_gist_compress(internal)',
    10248: 'inet_gist_penalty(internal,internal,internal)',
    10249: 'inet_gist_picksplit(internal,internal)',
    10250: 'inet_gist_same(inet,inet,internal)',
    10251: 'inet_gist_fetch(internal)',
    10252: 'multirange_gist_consistent(internal,anymultirange,smallint,oid,internal)',
    10253: 'range_gist_union(internal,internal)',
    10254: 'multirange_gist_compress(internal)',
    10255: 'range_gist_penalty(internal,internal,internal)',
    10256: 'range_gist_picksplit(internal,internal)',
    10257: 'range_gist_same(anyrange,anyrange,internal)',
    10258: 'ginarrayextract(anyarray,internal,internal)',
    10259: 'ginqueryarrayextract(anyarray,internal,smallint,internal,internal,internal,internal)',
    10260: 'ginarrayconsistent(internal,smallint,anyarray,integer,internal,internal,internal,internal)',
    10261: 'ginarraytriconsistent(internal,smallint,anyarray,integer,internal,internal,internal)',
    10262: 'gin_cmp_tslexeme(text,text)',
    10263: 'gin_extract_tsvector(tsvector,internal,internal)',
    10264: 'gin_extract_tsquery(tsvector,internal,smallint,internal,internal,internal,internal)',
    10265: 'gin_tsquery_consistent(internal,smallint,tsvector,integer,internal,internal,internal,internal)',
    10266: 'gin_cmp_prefix(text,text,smallint,internal)',
    10267: 'gin_tsquery_triconsistent(internal,smallint,tsvector,integer,internal,internal,internal)',
    10268: 'gin_compare_jsonb(text,text)',
    10269: 'gin_extract_jsonb(jsonb,internal,internal)',
    10270: 'gin_extract_jsonb_query(jsonb,internal,smallint,internal,internal,internal,internal)',
    10271: 'gin_consistent_jsonb(internal,smallint,jsonb,integer,internal,internal,internal,internal)',
    10272: 'gin_triconsistent_jsonb(internal,smallint,jsonb,integer,internal,internal,internal)',
    10273: 'btint4cmp(integer,integer)',
    10274: 'gin_extract_jsonb_path(jsonb,internal,internal)',
    10275: 'gin_extract_jsonb_query_path(jsonb,internal,smallint,internal,internal,internal,internal)',
    10276: 'gin_consistent_jsonb_path(internal,smallint,jsonb,integer,internal,internal,internal,internal)',
    10277: 'gin_triconsistent_jsonb_path(internal,smallint,jsonb,integer,internal,internal,internal)',
    10278: 'spg_range_quad_config(internal,internal)',
    10279: 'spg_range_quad_choose(internal,internal)',
    10280: 'spg_range_quad_picksplit(internal,internal)',
    10281: 'spg_range_quad_inner_consistent(internal,internal)',
    10282: 'spg_range_quad_leaf_consistent(internal,internal)',
    10283: 'inet_spg_config(internal,internal)',
    10284: 'inet_spg_choose(internal,internal)',
    10285: 'inet_spg_picksplit(internal,internal)',
    10286: 'inet_spg_inner_consistent(internal,internal)',
    10287: 'inet_spg_leaf_consistent(internal,internal)',
    10288: 'spg_quad_config(internal,internal)',
    10289: 'spg_quad_choose(internal,internal)',
    10290: 'spg_quad_picksplit(internal,internal)',
    10291: 'spg_quad_inner_consistent(internal,internal)',
    10292: 'spg_quad_leaf_consistent(internal,internal)',
    10293: 'spg_kd_config(internal,internal)',
    10294: 'spg_kd_choose(internal,internal)',
    10295: 'spg_kd_picksplit(internal,internal)',
    10296: 'spg_kd_inner_consistent(internal,internal)',
    10297: 'spg_quad_leaf_consistent(internal,internal)',
    10298: 'spg_text_config(internal,internal)',
    10299: 'spg_text_choose(internal,internal)',
    10300: 'spg_text_picksplit(internal,internal)',
    10301: 'spg_text_inner_consistent(internal,internal)',
    10302: 'spg_text_leaf_consistent(internal,internal)',
    10303: 'spg_box_quad_config(internal,internal)',
    10304: 'spg_box_quad_choose(internal,internal)',
    10305: 'spg_box_quad_picksplit(internal,internal)',
    10306: 'spg_box_quad_inner_consistent(internal,internal)',
    10307: 'spg_box_quad_leaf_consistent(internal,internal)',
    10308: 'spg_bbox_quad_config(internal,internal)',
    10309: 'spg_box_quad_choose(internal,internal)',
    10310: 'spg_box_quad_picksplit(internal,internal)',
    10311: 'spg_box_quad_inner_consistent(internal,internal)',
    10312: 'spg_box_quad_leaf_consistent(internal,internal)',
    10313: 'spg_poly_quad_compress(polygon)',
    10314: 'brin_minmax_opcinfo(internal)',
    10315: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10316: 'brin_minmax_consistent(internal,internal,internal)',
    10317: 'brin_minmax_union(internal,internal,internal)',
    10318: 'brin_bloom_opcinfo(internal)',
    10319: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10320: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10321: 'brin_bloom_union(internal,internal,internal)',
    10322: 'brin_bloom_options(internal)',
    10323: 'hashvarlena(internal)',
    10324: 'brin_minmax_opcinfo(internal)',
    10325: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10326: 'brin_minmax_consistent(internal,internal,internal)',
    10327: 'brin_minmax_union(internal,internal,internal)',
    10328: 'brin_bloom_opcinfo(internal)',
    10329: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10330: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10331: 'brin_bloom_union(internal,internal,internal)',
    10332: 'brin_bloom_options(internal)',
    10333: 'hashchar("char")',
    10334: 'brin_minmax_opcinfo(internal)',
    10335: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10336: 'brin_minmax_consistent(internal,internal,internal)',
    10337: 'brin_minmax_union(internal,internal,internal)',
    10338: 'brin_bloom_opcinfo(internal)',
    10339: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10340: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10341: 'brin_bloom_union(internal,internal,internal)',
    10342: 'brin_bloom_options(internal)',
    10343: 'hashname(name)',
    10344: 'brin_minmax_opcinfo(internal)',
    10345: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10346: 'brin_minmax_consistent(internal,internal,internal)',
    10347: 'brin_minmax_union(internal,internal,internal)',
    10348: 'brin_minmax_opcinfo(internal)',
    10349: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10350: 'brin_minmax_consistent(internal,internal,internal)',
    10351: 'brin_minmax_union(internal,internal,internal)',
    10352: 'brin_minmax_opcinfo(internal)',
    10353: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10354: 'brin_minmax_consistent(internal,internal,internal)',
    10355: 'brin_minmax_union(internal,internal,internal)',
    10356: 'brin_minmax_multi_opcinfo(internal)',
    10357: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10358: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10359: 'brin_minmax_multi_union(internal,internal,internal)',
    10360: 'brin_minmax_multi_options(internal)',
    10361: 'brin_minmax_multi_distance_int2(internal,internal)',
    10362: 'brin_minmax_multi_opcinfo(internal)',
    10363: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10364: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10365: 'brin_minmax_multi_union(internal,internal,internal)',
    10366: 'brin_minmax_multi_options(internal)',
    10367: 'brin_minmax_multi_distance_int4(internal,internal)',
    10368: 'brin_minmax_multi_opcinfo(internal)',
    10369: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10370: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10371: 'brin_minmax_multi_union(internal,internal,internal)',
    10372: 'brin_minmax_multi_options(internal)',
    10373: 'brin_minmax_multi_distance_int8(internal,internal)',
    10374: 'brin_bloom_opcinfo(internal)',
    10375: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10376: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10377: 'brin_bloom_union(internal,internal,internal)',
    10378: 'brin_bloom_options(internal)',
    10379: 'hashint8(bigint)',
    10380: 'brin_bloom_opcinfo(internal)',
    10381: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10382: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10383: 'brin_bloom_union(internal,internal,internal)',
    10384: 'brin_bloom_options(internal)',
    10385: 'hashint2(smallint)',
    10386: 'brin_bloom_opcinfo(internal)',
    10387: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10388: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10389: 'brin_bloom_union(internal,internal,internal)',
    10390: 'brin_bloom_options(internal)',
    10391: 'hashint4(integer)',
    10392: 'brin_minmax_opcinfo(internal)',
    10393: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10394: 'brin_minmax_consistent(internal,internal,internal)',
    10395: 'brin_minmax_union(internal,internal,internal)',
    10396: 'brin_bloom_opcinfo(internal)',
    10397: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10398: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10399: 'brin_bloom_union(internal,internal,internal)',
    10400: 'brin_bloom_options(internal)',
    10401: 'hashtext(text)',
    10402: 'brin_minmax_opcinfo(internal)',
    10403: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10404: 'brin_minmax_consistent(internal,internal,internal)',
    10405: 'brin_minmax_union(internal,internal,internal)',
    10406: 'brin_minmax_multi_opcinfo(internal)',
    10407: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10408: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10409: 'brin_minmax_multi_union(internal,internal,internal)',
    10410: 'brin_minmax_multi_options(internal)',
    10411: 'brin_minmax_multi_distance_int4(internal,internal)',
    10412: 'brin_bloom_opcinfo(internal)',
    10413: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10414: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10415: 'brin_bloom_union(internal,internal,internal)',
    10416: 'brin_bloom_options(internal)',
    10417: 'hashoid(oid)',
    10418: 'brin_minmax_opcinfo(internal)',
    10419: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10420: 'brin_minmax_consistent(internal,internal,internal)',
    10421: 'brin_minmax_union(internal,internal,internal)',
    10422: 'brin_bloom_opcinfo(internal)',
    10423: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10424: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10425: 'brin_bloom_union(internal,internal,internal)',
    10426: 'brin_bloom_options(internal)',
    10427: 'hashtid(tid)',
    10428: 'brin_minmax_multi_opcinfo(internal)',
    10429: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10430: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10431: 'brin_minmax_multi_union(internal,internal,internal)',
    10432: 'brin_minmax_multi_options(internal)',
    10433: 'brin_minmax_multi_distance_tid(internal,internal)',
    10434: 'brin_minmax_opcinfo(internal)',
    10435: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10436: 'brin_minmax_consistent(internal,internal,internal)',
    10437: 'brin_minmax_union(internal,internal,internal)',
    10438: 'brin_minmax_opcinfo(internal)',
    10439: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10440: 'brin_minmax_consistent(internal,internal,internal)',
    10441: 'brin_minmax_union(internal,internal,internal)',
    10442: 'brin_minmax_multi_opcinfo(internal)',
    10443: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10444: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10445: 'brin_minmax_multi_union(internal,internal,internal)',
    10446: 'brin_minmax_multi_options(internal)',
    10447: 'brin_minmax_multi_distance_float4(internal,internal)',
    10448: 'brin_minmax_multi_opcinfo(internal)',
    10449: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10450: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10451: 'brin_minmax_multi_union(internal,internal,internal)',
    10452: 'brin_minmax_multi_options(internal)',
    10453: 'brin_minmax_multi_distance_float8(internal,internal)',
    10454: 'brin_bloom_opcinfo(internal)',
    10455: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10456: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10457: 'brin_bloom_union(internal,internal,internal)',
    10458: 'brin_bloom_options(internal)',
    10459: 'hashfloat4(real)',
    10460: 'brin_bloom_opcinfo(internal)',
    10461: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10462: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10463: 'brin_bloom_union(internal,internal,internal)',
    10464: 'brin_bloom_options(internal)',
    10465: 'hashfloat8(double precision)',
    10466: 'brin_minmax_opcinfo(internal)',
    10467: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10468: 'brin_minmax_consistent(internal,internal,internal)',
    10469: 'brin_minmax_union(internal,internal,internal)',
    10470: 'brin_minmax_multi_opcinfo(internal)',
    10471: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10472: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10473: 'brin_minmax_multi_union(internal,internal,internal)',
    10474: 'brin_minmax_multi_options(internal)',
    10475: 'brin_minmax_multi_distance_macaddr(internal,internal)',
    10476: 'brin_bloom_opcinfo(internal)',
    10477: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10478: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10479: 'brin_bloom_union(internal,internal,internal)',
    10480: 'brin_bloom_options(internal)',
    10481: 'hashmacaddr(macaddr)',
    10482: 'brin_minmax_opcinfo(internal)',
    10483: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10484: 'brin_minmax_consistent(internal,internal,internal)',
    10485: 'brin_minmax_union(internal,internal,internal)',
    10486: 'brin_minmax_multi_opcinfo(internal)',
    10487: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10488: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10489: 'brin_minmax_multi_union(internal,internal,internal)',
    10490: 'brin_minmax_multi_options(internal)',
    10491: 'brin_minmax_multi_distance_macaddr8(internal,internal)',
    10492: 'brin_bloom_opcinfo(internal)',
    10493: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10494: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10495: 'brin_bloom_union(internal,internal,internal)',
    10496: 'brin_bloom_options(internal)',
    10497: 'hashmacaddr8(macaddr8)',
    10498: 'brin_minmax_opcinfo(internal)',
    10499: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10500: 'brin_minmax_consistent(internal,internal,internal)',
    10501: 'brin_minmax_union(internal,internal,internal)',
    10502: 'brin_minmax_multi_opcinfo(internal)',
    10503: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10504: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10505: 'brin_minmax_multi_union(internal,internal,internal)',
    10506: 'brin_minmax_multi_options(internal)',
    10507: 'brin_minmax_multi_distance_inet(internal,internal)',
    10508: 'brin_bloom_opcinfo(internal)',
    10509: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10510: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10511: 'brin_bloom_union(internal,internal,internal)',
    10512: 'brin_bloom_options(internal)',
    10513: 'hashinet(inet)',
    10514: 'brin_inclusion_opcinfo(internal)',
    10515: 'brin_inclusion_add_value(internal,internal,internal,internal)',
    10516: 'brin_inclusion_consistent(internal,internal,internal)',
    10517: 'brin_inclusion_union(internal,internal,internal)',
    10518: 'inet_merge(inet,inet)',
    10519: 'inet_same_family(inet,inet)',
    10520: 'network_supeq(inet,inet)',
    10521: 'brin_minmax_opcinfo(internal)',
    10522: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10523: 'brin_minmax_consistent(internal,internal,internal)',
    10524: 'brin_minmax_union(internal,internal,internal)',
    10525: 'brin_bloom_opcinfo(internal)',
    10526: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10527: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10528: 'brin_bloom_union(internal,internal,internal)',
    10529: 'brin_bloom_options(internal)',
    10530: 'hashbpchar(character)',
    10531: 'brin_minmax_opcinfo(internal)',
    10532: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10533: 'brin_minmax_consistent(internal,internal,internal)',
    10534: 'brin_minmax_union(internal,internal,internal)',
    10535: 'brin_minmax_multi_opcinfo(internal)',
    10536: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10537: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10538: 'brin_minmax_multi_union(internal,internal,internal)',
    10539: 'brin_minmax_multi_options(internal)',
    10540: 'brin_minmax_multi_distance_time(internal,internal)',
    10541: 'brin_bloom_opcinfo(internal)',
    10542: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10543: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10544: 'brin_bloom_union(internal,internal,internal)',
    10545: 'brin_bloom_options(internal)',
    10546: 'time_hash(time without time zone)',
    10547: 'brin_minmax_opcinfo(internal)',
    10548: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10549: 'brin_minmax_consistent(internal,internal,internal)',
    10550: 'brin_minmax_union(internal,internal,internal)',
    10551: 'brin_minmax_opcinfo(internal)',
    10552: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10553: 'brin_minmax_consistent(internal,internal,internal)',
    10554: 'brin_minmax_union(internal,internal,internal)',
    10555: 'brin_minmax_opcinfo(internal)',
    10556: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10557: 'brin_minmax_consistent(internal,internal,internal)',
    10558: 'brin_minmax_union(internal,internal,internal)',
    10559: 'brin_minmax_multi_opcinfo(internal)',
    10560: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10561: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10562: 'brin_minmax_multi_union(internal,internal,internal)',
    10563: 'brin_minmax_multi_options(internal)',
    10564: 'brin_minmax_multi_distance_timestamp(internal,internal)',
    10565: 'brin_minmax_multi_opcinfo(internal)',
    10566: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10567: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10568: 'brin_minmax_multi_union(internal,internal,internal)',
    10569: 'brin_minmax_multi_options(internal)',
    10570: 'brin_minmax_multi_distance_timestamp(internal,internal)',
    10571: 'brin_minmax_multi_opcinfo(internal)',
    10572: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10573: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10574: 'brin_minmax_multi_union(internal,internal,internal)',
    10575: 'brin_minmax_multi_options(internal)',
    10576: 'brin_minmax_multi_distance_date(internal,internal)',
    10577: 'brin_bloom_opcinfo(internal)',
    10578: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10579: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10580: 'brin_bloom_union(internal,internal,internal)',
    10581: 'brin_bloom_options(internal)',
    10582: 'timestamp_hash(timestamp without time zone)',
    10583: 'brin_bloom_opcinfo(internal)',
    10584: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10585: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10586: 'brin_bloom_union(internal,internal,internal)',
    10587: 'brin_bloom_options(internal)',
    10588: 'timestamp_hash(timestamp without time zone)',
    10589: 'brin_bloom_opcinfo(internal)',
    10590: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10591: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10592: 'brin_bloom_union(internal,internal,internal)',
    10593: 'brin_bloom_options(internal)',
    10594: 'hashint4(integer)',
    10595: 'brin_minmax_opcinfo(internal)',
    10596: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10597: 'brin_minmax_consistent(internal,internal,internal)',
    10598: 'brin_minmax_union(internal,internal,internal)',
    10599: 'brin_minmax_multi_opcinfo(internal)',
    10600: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10601: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10602: 'brin_minmax_multi_union(internal,internal,internal)',
    10603: 'brin_minmax_multi_options(internal)',
    10604: 'brin_minmax_multi_distance_interval(internal,internal)',
    10605: 'brin_bloom_opcinfo(internal)',
    10606: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10607: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10608: 'brin_bloom_union(internal,internal,internal)',
    10609: 'brin_bloom_options(internal)',
    10610: 'interval_hash(interval)',
    10611: 'brin_minmax_opcinfo(internal)',
    10612: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10613: 'brin_minmax_consistent(internal,internal,internal)',
    10614: 'brin_minmax_union(internal,internal,internal)',
    10615: 'brin_minmax_multi_opcinfo(internal)',
    10616: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10617: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10618: 'brin_minmax_multi_union(internal,internal,internal)',
    10619: 'brin_minmax_multi_options(internal)',
    10620: 'brin_minmax_multi_distance_timetz(internal,internal)',
    10621: 'brin_bloom_opcinfo(internal)',
    10622: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10623: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10624: 'brin_bloom_union(internal,internal,internal)',
    10625: 'brin_bloom_options(internal)',
    10626: 'timetz_hash(time with time zone)',
    10627: 'brin_minmax_opcinfo(internal)',
    10628: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10629: 'brin_minmax_consistent(internal,internal,internal)',
    10630: 'brin_minmax_union(internal,internal,internal)',
    10631: 'brin_minmax_opcinfo(internal)',
    10632: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10633: 'brin_minmax_consistent(internal,internal,internal)',
    10634: 'brin_minmax_union(internal,internal,internal)',
    10635: 'brin_minmax_opcinfo(internal)',
    10636: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10637: 'brin_minmax_consistent(internal,internal,internal)',
    10638: 'brin_minmax_union(internal,internal,internal)',
    10639: 'brin_minmax_multi_opcinfo(internal)',
    10640: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10641: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10642: 'brin_minmax_multi_union(internal,internal,internal)',
    10643: 'brin_minmax_multi_options(internal)',
    10644: 'brin_minmax_multi_distance_numeric(internal,internal)',
    10645: 'brin_bloom_opcinfo(internal)',
    10646: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10647: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10648: 'brin_bloom_union(internal,internal,internal)',
    10649: 'brin_bloom_options(internal)',
    10650: 'hash_numeric(numeric)',
    10651: 'brin_minmax_opcinfo(internal)',
    10652: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10653: 'brin_minmax_consistent(internal,internal,internal)',
    10654: 'brin_minmax_union(internal,internal,internal)',
    10655: 'brin_minmax_multi_opcinfo(internal)',
    10656: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10657: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10658: 'brin_minmax_multi_union(internal,internal,internal)',
    10659: 'brin_minmax_multi_options(internal)',
    10660: 'brin_minmax_multi_distance_uuid(internal,internal)',
    10661: 'brin_bloom_opcinfo(internal)',
    10662: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10663: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10664: 'brin_bloom_union(internal,internal,internal)',
    10665: 'brin_bloom_options(internal)',
    10666: 'uuid_hash(uuid)',
    10667: 'brin_inclusion_opcinfo(internal)',
    10668: 'brin_inclusion_add_value(internal,internal,internal,internal)',
    10669: 'brin_inclusion_consistent(internal,internal,internal)',
    10670: 'brin_inclusion_union(internal,internal,internal)',
    10671: 'range_merge(anyrange,anyrange)',
    10672: 'range_contains(anyrange,anyrange)',
    10673: 'isempty(anyrange)',
    10674: 'brin_minmax_opcinfo(internal)',
    10675: 'brin_minmax_add_value(internal,internal,internal,internal)',
    10676: 'brin_minmax_consistent(internal,internal,internal)',
    10677: 'brin_minmax_union(internal,internal,internal)',
    10678: 'brin_minmax_multi_opcinfo(internal)',
    10679: 'brin_minmax_multi_add_value(internal,internal,internal,internal)',
    10680: 'brin_minmax_multi_consistent(internal,internal,internal,integer)',
    10681: 'brin_minmax_multi_union(internal,internal,internal)',
    10682: 'brin_minmax_multi_options(internal)',
    10683: 'brin_minmax_multi_distance_pg_lsn(internal,internal)',
    10684: 'brin_bloom_opcinfo(internal)',
    10685: 'brin_bloom_add_value(internal,internal,internal,internal)',
    10686: 'brin_bloom_consistent(internal,internal,internal,integer)',
    10687: 'brin_bloom_union(internal,internal,internal)',
    10688: 'brin_bloom_options(internal)',
    10689: 'pg_lsn_hash(pg_lsn)',
    10690: 'brin_inclusion_opcinfo(internal)',
    10691: 'brin_inclusion_add_value(internal,internal,internal,internal)',
    10692: 'brin_inclusion_consistent(internal,internal,internal)',
    10693: 'brin_inclusion_union(internal,internal,internal)',
    10694: 'bound_box(box,box)',
    10695: 'box_contain(box,box)',
}

# CREATE EXTENSION's operators: name kind canmerge canhash left right result com negate
# code rest join, types by name (_ for a space) and com/negate as regoperator text: the
# database numbers an extension's objects
EXTENSION_OPERATORS: dict[str, str] = {
    "hstore": """
-> b f f hstore text text 0 0 fetchval - -
-> b f f hstore text[] text[] 0 0 slice_array - -
? b f f hstore text boolean 0 0 exist matchingsel matchingjoinsel
?| b f f hstore text[] boolean 0 0 exists_any matchingsel matchingjoinsel
?& b f f hstore text[] boolean 0 0 exists_all matchingsel matchingjoinsel
- b f f hstore text hstore 0 0 public.delete - -
- b f f hstore text[] hstore 0 0 public.delete - -
- b f f hstore hstore hstore 0 0 public.delete - -
|| b f f hstore hstore hstore 0 0 hs_concat - -
<@ b f f hstore hstore boolean @>(hstore,hstore) 0 hs_contained matchingsel matchingjoinsel
@> b f f hstore hstore boolean <@(hstore,hstore) 0 hs_contains matchingsel matchingjoinsel
%% l f f - hstore text[] 0 0 hstore_to_array - -
%# l f f - hstore text[] 0 0 hstore_to_matrix - -
<> b f f hstore hstore boolean <>(hstore,hstore) =(hstore,hstore) hstore_ne neqsel neqjoinsel
= b t t hstore hstore boolean =(hstore,hstore) <>(hstore,hstore) hstore_eq eqsel eqjoinsel
#># b f f hstore hstore boolean #<#(hstore,hstore) #<=#(hstore,hstore) hstore_gt scalargtsel scalargtjoinsel
#>=# b f f hstore hstore boolean #<=#(hstore,hstore) #<#(hstore,hstore) hstore_ge scalargesel scalargejoinsel
#<# b f f hstore hstore boolean #>#(hstore,hstore) #>=#(hstore,hstore) hstore_lt scalarltsel scalarltjoinsel
#<=# b f f hstore hstore boolean #>=#(hstore,hstore) #>#(hstore,hstore) hstore_le scalarlesel scalarlejoinsel
""",
}
