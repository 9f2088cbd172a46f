# chart.svg and chart.png, written by attnzoo; rerun with `gnuplot chart.gp` in this folder.
$f0 << EOD
"full (a)" 0.4564 72.0322 7 0.30217
"flash (a)" 1.2127 72.0302 1.61669 0.301781
EOD
$f1 << EOD
"bigbird (a)" 3.075 72.2836 2.1789 0.339627
"global (cd)" 10.7856 63.1796 1.61575 1.41195
"local (bcdef)" 6.4343 60.8539 1.76569 3.87556
"longformer (defghi)" 5.9459 55.2562 1.77338 3.75418
"strided (ef)" 9.4747 51.9177 1.68543 0.462458
EOD
$f2 << EOD
"compressed (ef)" 2.1954 52.3562 1.65828 0.175858
"efficient (b)" 7.3974 66.6103 1.60353 1.11402
"linear (g)" 8.9409 47.7804 1.60447 0.328509
"linformer (abcdefghi)" 4.3127 59.5569 1.86854 10.8726
"performer (f)" 8.6862 53.0076 1.82677 0.375386
"rfa (gh)" 3.8859 48.2442 2.14671 0.361183
"synthesizer (hi)" 0.7532 49.9927 1.68319 0.745065
EOD
$f3 << EOD
"fnet (hi)" 12.436 48.8875 1.39779 0.431732
"gmlp (ef)" 0.5856 52.4149 3.29274 0.50234
"mixer (ef)" 14.4824 52.6764 1.47728 0.230609
EOD
$f4 << EOD
"reformer (bc)" 2.4818 66.2309 1.9303 0.481799
"routing (ef)" 3.6191 52.204 1.67055 0.352373
"sinkhorn (defi)" 6.5228 55.4776 1.83998 2.77999
"reformer+lra (e)" 2.9069 51.7301 1.6302 0.552077
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart.svg'
set title "Attention Zoo on this CPU (preset mini): score, speed, memory"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "score: mean test accuracy (%) over ListOps, Text, Retrieval, Image and Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [24.664:77.7618]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full (a)" at 0.4564,72.0322 center offset char 0,2.16 front
set label 2 "bigbird (a)" at 3.075,72.2836 center offset char 0,1.1315 front
set label 3 "compressed (ef)" at 2.1954,52.3562 center offset char 0,1.02043 front
set label 4 "efficient (b)" at 7.3974,66.6103 center offset char 0,1.00875 front
set label 5 "flash (a)" at 1.2127,72.0302 center offset char 0,1.01156 front
set label 6 "fnet (hi)" at 12.436,48.8875 center offset char 0,0.964863 front
set label 7 "global (cd)" at 10.7856,63.1796 center offset char 0,1.01136 front
set label 8 "gmlp (ef)" at 0.5856,52.4149 center offset char 0,1.36912 front
set label 9 "linear (g)" at 8.9409,47.7804 center offset char 0,-1.00895 front
set label 10 "linformer (abcdefghi)" at 4.3127,59.5569 center offset char -11.7474,0 front
set label 11 "local (bcdef)" at 6.4343,60.8539 center offset char 0,1.04335 front
set label 12 "longformer (defghi)" at 5.9459,55.2562 center offset char 0,1.04499 front
set label 13 "mixer (ef)" at 14.4824,52.6764 center offset char 0,0.981819 front
set label 14 "performer (f)" at 8.6862,53.0076 center offset char -7.73071,0 front
set label 15 "reformer (bc)" at 2.4818,66.2309 center offset char 0,1.07846 front
set label 16 "rfa (gh)" at 3.8859,48.2442 center offset char 0,-1.12463 front
set label 17 "routing (ef)" at 3.6191,52.204 center offset char 7.16822,-1.02305 front
set label 18 "sinkhorn (defi)" at 6.5228,55.4776 center offset char 8.73599,2.0592 front
set arrow from first 6.81324,55.7514 to first 9.34551,57.7376 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided (ef)" at 9.4747,51.9177 center offset char 7.17417,3.02623 front
set arrow from first 9.80899,52.3076 to first 13.1247,55.5827 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer (hi)" at 0.7532,49.9927 center offset char 0,-1.02575 front
set label 21 "reformer+lra (e)" at 2.9069,51.7301 center offset char -9.15208,-1.01444 front
set arrow from graph 0, first 29.8025 to graph 1, first 29.8025 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 29.8025 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart.png'
set title "Attention Zoo on this CPU (preset mini): score, speed, memory"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "score: mean test accuracy (%) over ListOps, Text, Retrieval, Image and Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [24.664:77.7618]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full (a)" at 0.4564,72.0322 center offset char 0,2.16 front
set label 2 "bigbird (a)" at 3.075,72.2836 center offset char 0,1.1315 front
set label 3 "compressed (ef)" at 2.1954,52.3562 center offset char 0,1.02043 front
set label 4 "efficient (b)" at 7.3974,66.6103 center offset char 0,1.00875 front
set label 5 "flash (a)" at 1.2127,72.0302 center offset char 0,1.01156 front
set label 6 "fnet (hi)" at 12.436,48.8875 center offset char 0,0.964863 front
set label 7 "global (cd)" at 10.7856,63.1796 center offset char 0,1.01136 front
set label 8 "gmlp (ef)" at 0.5856,52.4149 center offset char 0,1.36912 front
set label 9 "linear (g)" at 8.9409,47.7804 center offset char 0,-1.00895 front
set label 10 "linformer (abcdefghi)" at 4.3127,59.5569 center offset char -11.7474,0 front
set label 11 "local (bcdef)" at 6.4343,60.8539 center offset char 0,1.04335 front
set label 12 "longformer (defghi)" at 5.9459,55.2562 center offset char 0,1.04499 front
set label 13 "mixer (ef)" at 14.4824,52.6764 center offset char 0,0.981819 front
set label 14 "performer (f)" at 8.6862,53.0076 center offset char -7.73071,0 front
set label 15 "reformer (bc)" at 2.4818,66.2309 center offset char 0,1.07846 front
set label 16 "rfa (gh)" at 3.8859,48.2442 center offset char 0,-1.12463 front
set label 17 "routing (ef)" at 3.6191,52.204 center offset char 7.16822,-1.02305 front
set label 18 "sinkhorn (defi)" at 6.5228,55.4776 center offset char 8.73599,2.0592 front
set arrow from first 6.81324,55.7514 to first 9.34551,57.7376 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided (ef)" at 9.4747,51.9177 center offset char 7.17417,3.02623 front
set arrow from first 9.80899,52.3076 to first 13.1247,55.5827 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer (hi)" at 0.7532,49.9927 center offset char 0,-1.02575 front
set label 21 "reformer+lra (e)" at 2.9069,51.7301 center offset char -9.15208,-1.01444 front
set arrow from graph 0, first 29.8025 to graph 1, first 29.8025 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 29.8025 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
